import { Elysia } from "elysia";
import type { AccountStore } from "../../accounts/account-store.ts";
import type { Principal } from "../../accounts/principal.ts";
import { GatewayError } from "../../canonical/gateway-error.ts";
import { WIRE_FORMATS, type WireFormat } from "../../canonical/wire-format.ts";
import { wireApi } from "../../wire/wire-apis.ts";
import { adminError as error, adminErrorOf } from "../../ops/admin-error.ts";
import type { AddressSource } from "../../ops/client-address.ts";
import type { AdminGate } from "../../ops/create-admin-gate.ts";
import type { Routing } from "../../routing/create-routing.ts";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "../../pipeline/exceeds-json-depth.ts";
import { decideRoute, type RoutingDecision } from "../../routing/decide-route.ts";
import { requiredApis } from "../../routing/required-apis.ts";
import { resolveTier } from "../../routing/resolve-tier.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

export interface AdminExplainDeps {
  /** The routing in use (a reload replaces it). */
  readonly routing: () => Routing;
  /** To explain for a given account (its plan and default tier); without it, any tier is allowed. */
  readonly accounts?: AccountStore | undefined;
}

const isWireFormat = (value: unknown): value is WireFormat => (WIRE_FORMATS as readonly unknown[]).includes(value);

/** Who an explain runs as without an account: every tier, default tier `normal`. */
const OPERATOR: Principal = {
  accountId: "explain",
  keyId: "explain",
  plan: "Enterprise",
  defaultTier: "normal",
  suspended: false,
  limits: { requestsPerMinute: null, concurrentRequests: null, tokensPerMonth: null },
};

function render(decision: RoutingDecision, warnings: readonly string[]) {
  const { signals } = decision;
  return {
    tier: decision.tier,
    task_class: decision.taskClass,
    rule: decision.rule,
    model: decision.modelName,
    effort: decision.effort,
    base_effort: decision.baseEffort,
    source: decision.source,
    candidates: decision.candidates.map((c) => ({ model: c.name, upstream_id: c.model.upstreamId, provider: c.model.provider })),
    conversation_key: decision.conversationKey,
    pinned_model: decision.pinnedModel,
    escalation: decision.escalation,
    cached: decision.cached,
    signals: {
      text_chars: signals.textChars,
      depth: signals.depth,
      tools: signals.toolCount,
      images: signals.hasImages,
      prompt_tokens: signals.promptTokens,
      last_is_tool_result: signals.lastIsToolResult,
      repeated_tool_call: signals.repeatedToolCall,
    },
    warnings,
  };
}

async function principalFor(deps: AdminExplainDeps, account: unknown): Promise<Principal | Response> {
  if (account === undefined) return OPERATOR;
  if (typeof account !== "string" || account === "") return error(400, "invalid_request_error", "account: must be an account id");
  const found = deps.accounts ? await deps.accounts.getAccount(account) : null;
  if (!found) return error(404, "not_found_error", `account ${account} not found`);
  return { ...OPERATOR, accountId: found.id, plan: found.plan, defaultTier: found.defaultTier, suspended: found.suspended, limits: found.limits };
}

async function explain(request: Request, deps: AdminExplainDeps): Promise<Response> {
  let input: unknown;
  const text = await request.text();
  if (exceedsJsonDepth(text)) return error(400, "invalid_request_error", `body: nested deeper than the limit of ${MAX_JSON_DEPTH} levels`);
  try {
    input = JSON.parse(text);
  } catch {
    return error(400, "invalid_request_error", "body: not valid JSON");
  }
  if (!isJsonObject(input)) return error(400, "invalid_request_error", "body: must be a JSON object");
  const format = input.format ?? "messages";
  if (!isWireFormat(format)) {
    return error(400, "invalid_request_error", "format: must be one of messages, chat, responses");
  }
  if (!isJsonObject(input.body)) return error(400, "invalid_request_error", "body.body: the request body to explain is required (an object)");
  const principal = await principalFor(deps, input.account);
  if (principal instanceof Response) return principal;
  const body = input.body;
  try {
    const tier = resolveTier(typeof body.model === "string" ? body.model : undefined, principal);
    const decoded = wireApi(format).client.decodeRequest(body);
    const sessionId = typeof input.session_id === "string" ? input.session_id : (decoded.value.user ?? undefined);
    const apis = requiredApis(format, decoded.value);
    const decision = await decideRoute(deps.routing(), { principal, tier, request: decoded.value, sessionId, format, apis, dryRun: true });
    return Response.json(render(decision, decoded.warnings));
  } catch (err) {
    if (err instanceof GatewayError) return adminErrorOf(err);
    throw err;
  }
}

/**
 * `POST /admin/route/explain`: the routing decision for a request body (class, rule, model, effort,
 * source, candidates) without calling an upstream, for operators tuning rules. Dry run: the rules
 * classify (never the `llm` classifier), nothing is cached and no conversation is pinned.
 */
export function adminExplainRoutes(gate: AdminGate, deps: AdminExplainDeps): Elysia {
  return new Elysia().post(
    "/admin/route/explain",
    async ({ request, server }: { request: Request; server: AddressSource | null }) => {
      const actor = await gate.check(request, gate.addressOf(request, server));
      if (actor instanceof Response) return actor;
      try {
        return await explain(request, deps);
      } catch (err) {
        console.error(`admin explain failed: ${err instanceof Error ? err.message : String(err)}`);
        return error(500, "api_error", "internal error");
      }
    },
    { parse: "none" },
  ) as unknown as Elysia;
}
