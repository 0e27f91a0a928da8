import type { TSchema } from "@sinclair/typebox";
import type { Converted } from "../canonical/converted.ts";
import type { Effort } from "../canonical/effort.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { Usage } from "../canonical/usage.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { buildResponseCacheKey, readCacheControl } from "../cache/build-response-cache-key.ts";
import { ChatRequestSchema } from "../formats/chat/schema.ts";
import { CLIENT_FORMATS } from "../formats/client-formats.ts";
import { compileBodyCheck } from "../formats/compile-body-check.ts";
import { MessagesRequestSchema } from "../formats/messages/schema.ts";
import { ResponsesRequestSchema } from "../formats/responses/schema.ts";
import type { Lease } from "../limits/limiter.ts";
import { chooseRoute } from "../routing/choose-route.ts";
import { decideRoute } from "../routing/decide-route.ts";
import { readSessionId } from "../routing/read-session-id.ts";
import type { Tier } from "../canonical/tier.ts";
import { resolveTier } from "../routing/resolve-tier.ts";
import type { JsonObject } from "../upstream/effort-result.ts";
import { sniffUsage } from "../upstream/passthrough/sniff-usage.ts";
import { answerFromCache } from "./answer-from-cache.ts";
import { authenticateRequest } from "./authenticate-request.ts";
import type { ModelAnswer, ModelCall } from "./call-model.ts";
import { callWithFailover, type Candidate } from "./call-with-failover.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { newRequestId } from "./new-request-id.ts";
import { readJsonBody } from "./read-json-body.ts";
import { decodeAnswerBytes } from "./rebuild-answer.ts";
import { renderError, toGatewayError } from "./render-error.ts";
import { readResponseId } from "./read-response-id.ts";
import { trackRequest } from "./track-request.ts";

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

interface Route {
  readonly modelName: string;
  readonly effort: Effort;
  readonly source: string;
  readonly taskClass?: string;
  readonly candidates: readonly Candidate[];
  readonly pinnedModel: string | null;
  readonly foreignTurns: number;
  /** Pins the conversation to the model that answered (fire and forget); Responses: also under the answer's id. */
  pin(modelName: string, responseId?: string): void;
}

/**
 * The routing decision: classification, conversation and breaker when routing is configured; the
 * tier's pool in order at its default effort otherwise (tests of other parts).
 */
async function routeRequest(
  deps: GatewayDeps,
  format: WireFormat,
  headers: Headers,
  principal: { readonly accountId: string },
  tier: Tier,
  decode: () => Converted<CanonicalRequest>,
): Promise<Route> {
  const routing = deps.routing;
  if (!routing) {
    const route = chooseRoute(deps.config, tier);
    const names = [route.modelName, ...deps.config.tiers[tier].models.filter((name) => name !== route.modelName)];
    const candidates = names.map((name) => ({ name, model: deps.config.models[name]!, effort: route.effort }));
    return { ...route, candidates, pinnedModel: null, foreignTurns: 0, pin: () => {} };
  }
  const request = decode().value;
  const decision = await decideRoute(routing, { principal, tier, request, format, sessionId: readSessionId(headers, request) });
  if (decision.source !== "continuation") deps.metrics?.cacheLookup("decision", decision.cached);
  return {
    modelName: decision.modelName,
    effort: decision.effort,
    source: decision.source,
    taskClass: decision.taskClass,
    candidates: decision.candidates.map((c) => ({ name: c.name, model: c.model, effort: decision.effort })),
    pinnedModel: decision.pinnedModel,
    foreignTurns: decision.foreignTurns,
    pin: (modelName, responseId) => void decision.recordOutcome(modelName, { responseId }).catch(() => {}),
  };
}

const NO_LEASE: Lease = { headers: {}, release: () => {} };

/** The limit a refusal names (its message says which: see limits/build-limit-refusal.ts). */
const limitKind = (message: string): string => (message.startsWith("rate") ? "rpm" : message.startsWith("concurrency") ? "concurrency" : "monthly_tokens");

async function acquireLease(deps: GatewayDeps, principal: Parameters<NonNullable<GatewayDeps["limiter"]>["acquire"]>[0]): Promise<Lease> {
  if (!deps.limiter) return NO_LEASE;
  const pending = deps.limiter.acquire(principal);
  const decision = pending instanceof Promise ? await pending : pending;
  if (!decision.ok) {
    deps.metrics?.limitRefused(limitKind(decision.error.message));
    throw decision.error;
  }
  return decision.lease;
}

/**
 * One chat request, start to end: authenticate, hold a plan-limit slot, read and check the body,
 * answer from the response cache when it can, otherwise resolve the tier, choose the model and
 * effort, call the candidates until one answers, and answer in the called format with the
 * `x-router-*` headers naming the model that actually answered. The slot is held until the last
 * byte has gone (or the client has), and the request is reported to the observers at that moment.
 */
export async function handleChatRequest(format: WireFormat, request: Request, deps: GatewayDeps): Promise<Response> {
  const requestId = newRequestId();
  let headers: Record<string, string> = {};
  let stream = false;
  let lease = NO_LEASE;
  const track = trackRequest(deps.observe, requestId, format, () => stream);
  const fields = track.fields;
  try {
    const principal = await authenticateRequest(request.headers, deps.authenticator);
    fields.accountId = principal.accountId;
    fields.plan = principal.plan;
    lease = await acquireLease(deps, principal);
    const limitHeaders = lease.headers;
    headers = { ...limitHeaders };
    const body = checkBody[format](await readJsonBody(request, deps.config.bodyLimitBytes)) as JsonObject;
    stream = body.stream === true;
    deps.logBody?.(requestId, body);
    const tier = resolveTier(typeof body.model === "string" ? body.model : undefined, principal);
    fields.tier = tier;
    if (tier === "smart-plus" && deps.smartPlus) {
      fields.source = "smartplus";
      const held = lease;
      const response = await deps.smartPlus.turn({ format, request, body, principal, requestId, headers, onEnd: () => (held.release(), track.finish(200)) });
      track.markFirstByte();
      return response;
    }

    const cache = deps.responseCache;
    const cacheControl = cache ? readCacheControl(request.headers) : undefined;
    const cacheKey = cacheControl && (cacheControl.lookup || cacheControl.store) ? buildResponseCacheKey(principal.accountId, format, body) : undefined;
    if (cache && cacheKey && cacheControl?.lookup) {
      const pending = cache.get(cacheKey);
      const hit = pending instanceof Promise ? await pending : pending;
      deps.metrics?.cacheLookup("response", hit !== null);
      if (hit) {
        fields.cacheHit = true;
        fields.model = hit.headers["x-router-model"];
        fields.effort = hit.headers["x-router-effort"];
        fields.source = hit.headers["x-router-source"];
        const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
        const response = answerFromCache(format, hit, stream, tier, includeUsage, { ...headers, "x-router-request-id": requestId, [REQUEST_ID_HEADER[format]]: requestId });
        track.markFirstByte();
        lease.release();
        track.finish(200, { usage: hit.response.usage });
        return response;
      }
    }

    let canonical: Converted<CanonicalRequest> | undefined;
    const decode = (): Converted<CanonicalRequest> => (canonical ??= CLIENT_FORMATS[format].decodeRequest(body));
    const route = await routeRequest(deps, format, request.headers, principal, tier, decode);
    fields.source = route.source;
    if (route.taskClass) fields.taskClass = route.taskClass;
    headers = { ...limitHeaders, ...routerHeaders(format, requestId, tier, route.modelName, route.effort, route.source) };
    const store = cacheKey !== undefined && cacheControl?.store === true ? cache : undefined;
    let answeredHeaders: Record<string, string> = {};
    const call: ModelCall = {
      format,
      tier,
      stream,
      client: request,
      timeoutMs: deps.config.upstreamTimeoutMs,
      body,
      canonical: decode,
      collect: store !== undefined,
      pinnedModel: route.pinnedModel,
      foreignTurns: route.foreignTurns,
      ...(format === "responses" ? { onResponseId: (name: string, id: string) => route.pin(name, id) } : {}),
      onStreamEnd: (outcome) => {
        lease.release();
        if (store && outcome.response && cacheKey) store.put(cacheKey, outcome.response, answeredHeaders);
        track.finish(200, {
          clientAborted: outcome.clientAborted,
          ...(outcome.usage ? { usage: outcome.usage } : {}),
          ...(outcome.error !== undefined ? { streamError: outcome.error } : {}),
        });
      },
    };
    const { answer, candidate, attempts } = await callWithFailover(call, route.candidates, {
      providers: deps.providers,
      clientHeaders: request.headers,
      breaker: deps.routing?.breaker,
      onAttempt: (report) => {
        fields.attempts = (fields.attempts ?? 0) + 1;
        fields.model = report.candidate.name;
        deps.metrics?.upstreamAttempt(report.candidate.name, report.error ? "error" : "ok");
        if (report.error?.retryable) deps.metrics?.failover(report.candidate.name);
      },
    });
    fields.attempts = attempts;
    fields.effort = answer.effort;
    fields.warnings.push(...answer.warnings);
    answeredHeaders = routerHeaders(format, requestId, tier, candidate.name, answer.effort, route.source);
    // A later `previous_response_id` names this answer: pin under its id too (a stream's is
    // pinned at its end, by `onResponseId`).
    const responseId = format === "responses" && !(answer.body instanceof ReadableStream) ? readResponseId(answer.body) : undefined;
    route.pin(candidate.name, responseId);
    headers = { ...limitHeaders, ...answeredHeaders, "content-type": answer.contentType };
    if (stream) headers["cache-control"] = "no-cache";
    track.markFirstByte();
    if (!stream) {
      queueMicrotask(() => {
        lease.release();
        const whole = store ? wholeAnswer(format, answer) : null;
        if (store && whole && cacheKey) store.put(cacheKey, whole, answeredHeaders);
        track.finish(200, usageOfAnswer(format, answer, whole));
      });
    }
    return new Response(answer.body, { status: 200, headers });
  } catch (error) {
    lease.release();
    const response = renderError(error, format, requestId, headers);
    track.finish(response.status, { errorType: toGatewayError(error).type });
    return response;
  }
}

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === "object" && !Array.isArray(value);

/** The complete answer in canonical form: decoded already when translated, read from the bytes when passed through. */
function wholeAnswer(format: WireFormat, answer: ModelAnswer): CanonicalResponse | null {
  if (answer.response) return answer.response;
  return answer.body instanceof Uint8Array ? decodeAnswerBytes(format, answer.body) : null;
}

/** Usage of a complete answer, from the decoded answer when there is one, else read from the bytes. */
function usageOfAnswer(format: WireFormat, answer: ModelAnswer, whole: CanonicalResponse | null): { usage?: Usage } {
  if (whole) return { usage: whole.usage };
  if (answer.response) return { usage: answer.response.usage };
  if (answer.body instanceof Uint8Array) {
    const usage = sniffUsage(format, [answer.body]);
    return usage ? { usage } : {};
  }
  return {};
}
