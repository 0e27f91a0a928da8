import type { Tier } from "../canonical/tier.ts";
import type { Config, ModelConfig } from "../config/schema.ts";
import { compileBodyCheck } from "../wire/compile-body-check.ts";
import { messagesApi } from "../wire/messages/api.ts";
import { checkMessagesRules } from "../wire/messages/check-request.ts";
import { CountTokensRequestSchema, type CountTokensRequest } from "../wire/messages/schema.ts";
import { resolveTier } from "../routing/resolve-tier.ts";
import { countUpstreamTokens } from "../usage/count-upstream-tokens.ts";
import { estimateTokenCount } from "../usage/estimate-token-count.ts";
import type { PinnedModelLookup } from "../usage/find-pinned-model.ts";
import { authenticateRequest } from "./authenticate-request.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { newRequestId } from "./new-request-id.ts";
import { readJsonBody } from "./read-json-body.ts";
import { renderError } from "./render-error.ts";
import type { RequestRecord } from "../canonical/request-record.ts";

const checkCountTokens = compileBodyCheck(CountTokensRequestSchema);

/** A count should be quick; a slow upstream is replaced by the local estimate. */
const COUNT_TIMEOUT_MS = 10_000;

export interface CountTokensOptions {
  /**
   * The conversation's pinned model (config name), when the routing knows one
   * (`findPinnedModel(routing.pins)` from usage/find-pinned-model.ts): counting on the model that
   * will answer keeps the count exact for it. Absent or undefined → the tier's default model.
   */
  readonly pinnedModel?: PinnedModelLookup | undefined;
}

function countingModel(config: Config, tier: Tier, pinned: string | undefined): { name: string; model: ModelConfig } {
  const pool = config.tiers[tier].models;
  const name = pinned !== undefined && pool.includes(pinned) ? pinned : pool[0]!;
  return { name, model: config.models[name]! };
}

/**
 * POST /v1/messages/count_tokens. Auth, plan and tier rules apply as for a chat request. The count
 * comes from the upstream of the tier's default model (Messages count endpoint, or the Responses
 * input-token endpoint with the request translated); when it cannot count, a local tokenizer
 * estimate flagged `estimated: true`. It never counts against token usage or the rate limits.
 */
export async function handleCountTokens(request: Request, deps: Pick<GatewayDeps, "config" | "authenticator" | "providers" | "observe">, options: CountTokensOptions = {}): Promise<Response> {
  const requestId = newRequestId();
  const startedAt = Date.now();
  let accountId: string | undefined;
  let keyId: string | undefined;
  let status = 200;
  let modelName: string | undefined;
  let tier: Tier | undefined;
  try {
    const principal = await authenticateRequest(request.headers, deps.authenticator);
    accountId = principal.accountId;
    keyId = principal.keyId;
    const body = checkCountTokens(await readJsonBody(request, deps.config.bodyLimitBytes)) as CountTokensRequest;
    checkMessagesRules(body);
    tier = resolveTier(body.model, principal);
    const pinned = await options.pinnedModel?.(principal.accountId, tier, body as Record<string, unknown>, request.headers);
    const target = countingModel(deps.config, tier, pinned);
    modelName = target.name;
    const provider = deps.providers[target.model.provider];
    const counted = provider
      ? await countUpstreamTokens({
          clientApi: messagesApi,
          body: body as Record<string, unknown>,
          model: target.model,
          provider,
          clientHeaders: request.headers,
          timeoutMs: Math.min(COUNT_TIMEOUT_MS, deps.config.upstreamTimeoutMs),
        })
      : null;
    const answer = counted === null ? { input_tokens: await estimateTokenCount(body), estimated: true } : { input_tokens: counted };
    return new Response(JSON.stringify(answer), {
      headers: {
        "content-type": "application/json",
        "x-router-tier": tier,
        "x-router-model": target.name,
        "x-router-request-id": requestId,
        "request-id": requestId,
      },
    });
  } catch (error) {
    const response = renderError(error, "messages", requestId);
    status = response.status;
    return response;
  } finally {
    deps.observe?.(countRecord(requestId, startedAt, status, accountId, keyId, tier, modelName));
  }
}

function countRecord(requestId: string, startedAt: number, status: number, accountId?: string, keyId?: string, tier?: Tier, model?: string): RequestRecord {
  return {
    requestId,
    startedAt,
    endpoint: "count_tokens",
    stream: false,
    ...(accountId !== undefined ? { accountId } : {}),
    ...(keyId !== undefined ? { keyId } : {}),
    ...(tier !== undefined ? { tier } : {}),
    ...(model !== undefined ? { model } : {}),
    status,
    clientAborted: false,
    latencyMs: Date.now() - startedAt,
    cacheHit: false,
    attempts: 1,
    warnings: [],
  };
}
