import { PLAN_TIERS } from "../canonical/plans.ts";
import type { Principal } from "../accounts/principal.ts";
import { fail } from "../canonical/gateway-error.ts";
import { isTier, type Tier } from "../canonical/tier.ts";

const DEFAULT_ALIASES = new Set(["", "auto", "default"]);

/**
 * The tier a request runs on: the tier named in `model`, or the account's default tier for an
 * empty, `auto` or `default` model. A tier outside the plan is refused with the spec's 403, and
 * one outside the key's allowed tiers with a 403 in the same words.
 */
export function resolveTier(model: string | undefined, principal: Principal): Tier {
  const name = (model ?? "").trim();
  const available = PLAN_TIERS[principal.plan];
  const tier = DEFAULT_ALIASES.has(name.toLowerCase()) ? principal.defaultTier : name;
  if (!isTier(tier)) {
    throw fail("ModelNotFound", `model \`${name}\` not found; use a tier name: \`${available.join(", ")}\``, { param: "model" });
  }
  if (!available.includes(tier)) {
    throw fail("Forbidden", `the \`${tier}\` tier is not included in plan \`${principal.plan}\`; available: \`${available.join(", ")}\``);
  }
  const allowed = principal.keyLimits?.allowedTiers;
  if (allowed && !allowed.includes(tier)) {
    const both = available.filter((t) => allowed.includes(t));
    throw fail("Forbidden", `the \`${tier}\` tier is not allowed for this key; allowed: \`${both.join(", ")}\``);
  }
  return tier;
}
