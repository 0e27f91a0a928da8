import type { Converted } from "../canonical/converted.ts";
import type { Effort } from "../canonical/effort.ts";
import { GatewayError, fail } from "../canonical/gateway-error.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { Tier } from "../canonical/tier.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { decideRoute, readPinAhead, type PinRead, type RoutingDecision } from "../routing/decide-route.ts";
import { readSessionId } from "../routing/read-session-id.ts";
import { requiredApis } from "../routing/required-apis.ts";
import type { Candidate } from "./call-with-failover.ts";
import type { GatewayDeps } from "./gateway-deps.ts";

/** The routing decision as the pipeline uses it. */
export interface Route {
  readonly modelName: string;
  readonly effort: Effort;
  readonly source: string;
  readonly taskClass?: string;
  readonly candidates: readonly Candidate[];
  readonly pinnedModel: string | null;
  readonly foreignTurns: number;
  /**
   * Pins the conversation to the model that answered (fire and forget); Responses: also under the
   * answer's id. `historyForeign`: it answered only without the history's thinking.
   */
  pin(modelName: string, responseId?: string, historyForeign?: boolean): void;
}

/** Chat `n` > 1 on a tier none of whose fitting models speaks Chat: refused rather than answered with one choice. */
function choicesUnavailable(tier: Tier): GatewayError {
  return fail(
    "NoModelFits",
    `\`n\` greater than 1 needs a model that speaks the Chat Completions API, and no model of the \`${tier}\` tier that can serve this request does; send \`n: 1\` or use another tier`,
    { param: "n" },
  );
}

/** Begins reading the request's conversation pin, for `routeRequest` to finish (see readPinAhead). */
export function readRequestPin(deps: GatewayDeps, headers: Headers, principal: { readonly accountId: string }, tier: Tier, decode: () => Converted<CanonicalRequest>): PinRead {
  const request = decode().value;
  return readPinAhead(deps.routing, { principal, tier, request, sessionId: readSessionId(headers, request) });
}

/** The routing decision: classification, conversation and breaker; `pinRead`, the pin as `readRequestPin` began to read it. */
export async function routeRequest(
  deps: GatewayDeps,
  format: WireFormat,
  headers: Headers,
  principal: { readonly accountId: string },
  tier: Tier,
  decode: () => Converted<CanonicalRequest>,
  pinRead?: PinRead,
): Promise<Route> {
  const { routing } = deps;
  const request = decode().value;
  const apis = requiredApis(format, request);
  let decision: RoutingDecision;
  try {
    // The pin read ahead holds the conversation's key: the session headers are read only without it.
    decision = await decideRoute(routing, { principal, tier, request, format, apis, sessionId: pinRead ? undefined : readSessionId(headers, request), pinRead });
  } catch (error) {
    throw apis && error instanceof GatewayError && error.code === "no_model_available" ? choicesUnavailable(tier) : error;
  }
  if (decision.source !== "continuation") deps.metrics?.cacheLookup("decision", decision.cached);
  return {
    modelName: decision.modelName,
    effort: decision.effort,
    source: decision.source,
    taskClass: decision.taskClass,
    candidates: decision.candidates.map((c) => ({ name: c.name, model: c.model, effort: decision.effort })),
    pinnedModel: decision.pinnedModel,
    foreignTurns: decision.foreignTurns,
    pin: (modelName, responseId, historyForeign) => void decision.recordOutcome(modelName, { responseId, historyForeign }).catch(() => {}),
  };
}
