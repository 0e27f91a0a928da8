import { PLAN_TIERS } from "../canonical/plans.ts";
import type { Principal } from "../accounts/principal.ts";
import type { Tier } from "../canonical/tier.ts";
import { fail } from "../canonical/gateway-error.ts";
import { authenticateRequest } from "./authenticate-request.ts";
import { buildModelEntry, type ModelEntry } from "./build-model-entry.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { newRequestId } from "./new-request-id.ts";
import { formatOfHeaders, renderError } from "./render-error.ts";
import { readRequestUrl } from "./read-request-url.ts";

/** The plan's tiers that the key may call. */
function callableTiers(principal: Principal): readonly Tier[] {
  const allowed = principal.keyLimits?.allowedTiers;
  const tiers = PLAN_TIERS[principal.plan];
  return allowed ? tiers.filter((tier) => allowed.includes(tier)) : tiers;
}

const json = (body: unknown, requestId: string): Response =>
  new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json", "x-router-request-id": requestId },
  });

/** Anthropic-style paging (`limit`, `after_id`, `before_id`) over the plan's tiers; without them, all of them. */
function page(entries: ModelEntry[], query: URLSearchParams): { data: ModelEntry[]; has_more: boolean } {
  const limitText = query.get("limit");
  const limit = limitText === null ? entries.length : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw fail("InvalidRequest", "`limit`: expected an integer from 1 to 1000", { param: "limit" });
  }
  const afterId = query.get("after_id");
  const beforeId = query.get("before_id");
  let start = 0;
  let end = entries.length;
  if (afterId) start = entries.findIndex((e) => e.id === afterId) + 1;
  if (beforeId) end = Math.max(0, entries.findIndex((e) => e.id === beforeId));
  const window = entries.slice(start, end);
  if (beforeId && !afterId) return { data: window.slice(-limit), has_more: window.length > limit };
  return { data: window.slice(0, limit), has_more: window.length > limit };
}

/** GET /v1/models: the tiers the key's plan includes. */
export async function handleListModels(request: Request, deps: GatewayDeps): Promise<Response> {
  const requestId = newRequestId();
  try {
    const principal = await authenticateRequest(request.headers, deps.authenticator);
    const entries = callableTiers(principal).map((tier) => buildModelEntry(tier, deps.config));
    const { data, has_more } = page(entries, readRequestUrl(request).searchParams);
    return json({ object: "list", data, has_more, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }, requestId);
  } catch (error) {
    return renderError(error, formatOfHeaders(request.headers), requestId);
  }
}

/** GET /v1/models/{id}: one tier; unknown or outside the plan → 404. */
export async function handleGetModel(request: Request, id: string, deps: GatewayDeps): Promise<Response> {
  const requestId = newRequestId();
  try {
    const principal = await authenticateRequest(request.headers, deps.authenticator);
    const tier = callableTiers(principal).find((t) => t === id);
    if (!tier) throw fail("ModelNotFound", `model \`${id}\` not found`);
    return json(buildModelEntry(tier, deps.config), requestId);
  } catch (error) {
    return renderError(error, formatOfHeaders(request.headers), requestId);
  }
}
