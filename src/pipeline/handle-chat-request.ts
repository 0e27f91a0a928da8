import type { TSchema } from "@sinclair/typebox";
import type { Converted } from "../canonical/converted.ts";
import type { Effort } from "../canonical/effort.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { ChatRequestSchema } from "../formats/chat/schema.ts";
import { CLIENT_FORMATS } from "../formats/client-formats.ts";
import { compileBodyCheck } from "../formats/compile-body-check.ts";
import { MessagesRequestSchema } from "../formats/messages/schema.ts";
import { ResponsesRequestSchema } from "../formats/responses/schema.ts";
import { chooseRoute } from "../routing/choose-route.ts";
import { resolveTier } from "../routing/resolve-tier.ts";
import type { JsonObject } from "../upstream/effort-result.ts";
import { authenticateRequest } from "./authenticate-request.ts";
import { callWithFailover, type Candidate } from "./call-with-failover.ts";
import type { ModelAnswer, ModelCall } from "./call-model.ts";
import { trackRequest } from "./track-request.ts";
import type { Usage } from "../canonical/usage.ts";
import { sniffUsage } from "../upstream/passthrough/sniff-usage.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { newRequestId } from "./new-request-id.ts";
import { readJsonBody } from "./read-json-body.ts";
import { renderError, toGatewayError } from "./render-error.ts";

const checkBody: Readonly<Record<WireFormat, (body: unknown) => unknown>> = {
  messages: compileBodyCheck(MessagesRequestSchema),
  chat: compileBodyCheck(ChatRequestSchema),
  responses: compileBodyCheck(ResponsesRequestSchema as TSchema),
};

/** The SDKs read these for the request id of an answer. */
const REQUEST_ID_HEADER: Readonly<Record<WireFormat, string>> = {
  messages: "request-id",
  chat: "x-request-id",
  responses: "x-request-id",
};

function routerHeaders(format: WireFormat, requestId: string, tier: string, model: string, effort: Effort, source: string): Record<string, string> {
  return {
    "x-router-tier": tier,
    "x-router-model": model,
    "x-router-effort": effort,
    "x-router-source": source,
    "x-router-request-id": requestId,
    [REQUEST_ID_HEADER[format]]: requestId,
  };
}

/** The chosen model first, then the rest of the tier's pool in order, each at the decided effort. */
function listCandidates(deps: GatewayDeps, tier: keyof GatewayDeps["config"]["tiers"], chosen: string, effort: Effort): Candidate[] {
  const names = [chosen, ...deps.config.tiers[tier].models.filter((name) => name !== chosen)];
  return names.map((name) => ({ name, model: deps.config.models[name]!, effort }));
}

/**
 * One chat request, start to end: authenticate, read and check the body, resolve the tier, choose
 * the model and effort, call the candidates until one answers, and answer in the called format
 * with the `x-router-*` headers naming the model that actually answered.
 */
export async function handleChatRequest(format: WireFormat, request: Request, deps: GatewayDeps): Promise<Response> {
  const requestId = newRequestId();
  let headers: Record<string, string> = {};
  let stream = false;
  const track = trackRequest(deps.observe, requestId, format, () => stream);
  const fields = track.fields;
  try {
    const principal = await authenticateRequest(request.headers, deps.authenticator);
    fields.accountId = principal.accountId;
    fields.plan = principal.plan;
    const body = checkBody[format](await readJsonBody(request, deps.config.bodyLimitBytes)) as JsonObject;
    stream = body.stream === true;
    const tier = resolveTier(typeof body.model === "string" ? body.model : undefined, principal);
    fields.tier = tier;
    const route = chooseRoute(deps.config, tier);
    fields.source = route.source;
    headers = routerHeaders(format, requestId, tier, route.modelName, route.effort, route.source);
    let canonical: Converted<CanonicalRequest> | undefined;
    const call: ModelCall = {
      format,
      tier,
      stream,
      client: request,
      timeoutMs: deps.config.upstreamTimeoutMs,
      body,
      canonical: () => (canonical ??= CLIENT_FORMATS[format].decodeRequest(body)),
      onStreamEnd: (outcome) =>
        track.finish(200, {
          clientAborted: outcome.clientAborted,
          ...(outcome.usage ? { usage: outcome.usage } : {}),
          ...(outcome.error !== undefined ? { streamError: outcome.error } : {}),
        }),
    };
    const { answer, candidate, attempts } = await callWithFailover(call, listCandidates(deps, tier, route.modelName, route.effort), {
      providers: deps.providers,
      clientHeaders: request.headers,
      onAttempt: (report) => {
        fields.attempts = (fields.attempts ?? 0) + 1;
        fields.model = report.candidate.name;
      },
    });
    fields.attempts = attempts;
    fields.effort = answer.effort;
    fields.warnings.push(...answer.warnings);
    headers = routerHeaders(format, requestId, tier, candidate.name, answer.effort, route.source);
    headers["content-type"] = answer.contentType;
    if (stream) headers["cache-control"] = "no-cache";
    track.markFirstByte();
    if (!stream) queueMicrotask(() => track.finish(200, usageOfAnswer(format, answer)));
    return new Response(answer.body, { status: 200, headers });
  } catch (error) {
    const response = renderError(error, format, requestId, headers);
    track.finish(response.status, { errorType: toGatewayError(error).type });
    return response;
  }
}

/** Usage of a complete answer: decoded already when translated, read from the bytes when passed through. */
function usageOfAnswer(format: WireFormat, answer: ModelAnswer): { usage?: Usage } {
  if (answer.response) return { usage: answer.response.usage };
  if (answer.body instanceof Uint8Array) {
    const usage = sniffUsage(format, [answer.body]);
    return usage ? { usage } : {};
  }
  return {};
}
