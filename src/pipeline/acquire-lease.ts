import type { Lease } from "../limits/limiter.ts";
import type { GatewayDeps } from "./gateway-deps.ts";

/** The lease of a request before it holds one: releasing it frees nothing. */
export const NO_LEASE: Lease = { headers: {}, release: () => {} };

/** The limit a refusal names (its message says which: see limits/build-limit-refusal.ts). */
const limitKind = (message: string): string =>
  message.startsWith("rate") ? "rpm" : message.startsWith("concurrency") ? "concurrency" : message.startsWith("monthly spend") ? "budget" : "monthly_tokens";

/** Holds a plan-limit slot for the request, or throws the 429 that names the limit. */
export async function acquireLease(deps: GatewayDeps, principal: Parameters<GatewayDeps["limiter"]["acquire"]>[0]): Promise<Lease> {
  const pending = deps.limiter.acquire(principal);
  const decision = pending instanceof Promise ? await pending : pending;
  if (!decision.ok) {
    deps.metrics?.limitRefused(limitKind(decision.error.message));
    throw decision.error;
  }
  return decision.lease;
}
