import type { TSchema } from "@sinclair/typebox";
import type { Effort } from "../canonical/effort.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { ModelConfig } from "../config/schema.ts";
import { ChatRequestSchema } from "../formats/chat/schema.ts";
import { compileBodyCheck } from "../formats/compile-body-check.ts";
import { MessagesRequestSchema } from "../formats/messages/schema.ts";
import { ResponsesRequestSchema } from "../formats/responses/schema.ts";
import { chooseRoute, type RouteDecision } from "../routing/choose-route.ts";
import { resolveTier } from "../routing/resolve-tier.ts";
import { setChatEffort } from "../upstream/chat/set-chat-effort.ts";
import type { EffortResult, JsonObject } from "../upstream/effort-result.ts";
import { setMessagesEffort } from "../upstream/messages/set-messages-effort.ts";
import { buildForwardHeaders } from "../upstream/passthrough/build-forward-headers.ts";
import { forwardSameFormat } from "../upstream/passthrough/forward-same-format.ts";
import { API_PATHS } from "../upstream/resolve-providers.ts";
import { setResponsesEffort } from "../upstream/responses/set-responses-effort.ts";
import { authenticateRequest } from "./authenticate-request.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { newRequestId } from "./new-request-id.ts";
import { readJsonBody } from "./read-json-body.ts";
import { renderError } from "./render-error.ts";

const checkBody: Readonly<Record<WireFormat, (body: unknown) => unknown>> = {
  messages: compileBodyCheck(MessagesRequestSchema),
  chat: compileBodyCheck(ChatRequestSchema),
  responses: compileBodyCheck(ResponsesRequestSchema as TSchema),
};

const setEffort: Readonly<Record<WireFormat, (body: JsonObject, effort: Effort, model: ModelConfig) => EffortResult>> = {
  messages: setMessagesEffort,
  chat: setChatEffort,
  responses: setResponsesEffort,
};

/** The SDKs read these for the request id of an answer. */
const REQUEST_ID_HEADER: Readonly<Record<WireFormat, string>> = {
  messages: "request-id",
  chat: "x-request-id",
  responses: "x-request-id",
};

function routerHeaders(format: WireFormat, requestId: string, route: RouteDecision, effort: Effort): Record<string, string> {
  return {
    "x-router-tier": route.tier,
    "x-router-model": route.modelName,
    "x-router-effort": effort,
    "x-router-source": route.source,
    "x-router-request-id": requestId,
    [REQUEST_ID_HEADER[format]]: requestId,
  };
}

/**
 * One chat request, start to end: authenticate, read and check the body, resolve the tier, choose
 * the model and effort, forward, and answer in the called format with the `x-router-*` headers.
 */
export async function handleChatRequest(format: WireFormat, request: Request, deps: GatewayDeps): Promise<Response> {
  const requestId = newRequestId();
  let headers: Record<string, string> = {};
  try {
    const principal = await authenticateRequest(request.headers, deps.authenticator);
    const body = checkBody[format](await readJsonBody(request, deps.config.bodyLimitBytes)) as JsonObject;
    const tier = resolveTier(typeof body.model === "string" ? body.model : undefined, principal);
    const route = chooseRoute(deps.config, tier, format);
    const { effort } = setEffort[format](body, route.effort, route.model);
    headers = routerHeaders(format, requestId, route, effort);
    const provider = deps.providers[route.model.provider]!;
    const stream = body.stream === true;
    body.model = route.model.upstreamId;
    const forwarded = await forwardSameFormat({
      url: provider.baseUrl + API_PATHS[format],
      headers: buildForwardHeaders(format, request.headers, provider, stream),
      body: JSON.stringify(body),
      stream,
      client: request,
      timeoutMs: deps.config.upstreamTimeoutMs,
      format,
      upstreamModelId: route.model.upstreamId,
      tier,
    });
    headers["content-type"] = forwarded.contentType;
    if (stream) headers["cache-control"] = "no-cache";
    return new Response(forwarded.body, { status: 200, headers });
  } catch (error) {
    return renderError(error, format, requestId, headers);
  }
}
