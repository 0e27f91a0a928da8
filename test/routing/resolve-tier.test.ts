import { describe, expect, test } from "bun:test";
import { PLAN_LIMITS, type Plan } from "../../src/canonical/plans.ts";
import type { Principal } from "../../src/accounts/principal.ts";
import { GatewayError } from "../../src/canonical/gateway-error.ts";
import { clampEffort } from "../../src/canonical/clamp-effort.ts";
import { resolveTier } from "../../src/routing/resolve-tier.ts";

const principal = (plan: Plan, defaultTier: Principal["defaultTier"] = "normal"): Principal => ({
  accountId: "acct_1",
  keyId: "key_1",
  plan,
  defaultTier,
  suspended: false,
  limits: PLAN_LIMITS[plan],
});

function failure(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  throw new Error("expected a GatewayError");
}

describe("resolveTier", () => {
  test.each([
    [undefined, "smart"],
    ["", "smart"],
    ["auto", "smart"],
    ["DEFAULT", "smart"],
    ["fast", "fast"],
    [" normal ", "normal"],
  ])("model %p → %p for a Pro account defaulting to smart", (model, tier) => {
    expect(resolveTier(model, principal("Pro", "smart"))).toBe(tier as Principal["defaultTier"]);
  });

  test.each([
    ["Starter", "smart", "the `smart` tier is not included in plan `Starter`; available: `fast, normal`"],
    ["Starter", "smart-plus", "the `smart-plus` tier is not included in plan `Starter`; available: `fast, normal`"],
    ["Pro", "smart-plus", "the `smart-plus` tier is not included in plan `Pro`; available: `fast, normal, smart`"],
  ] as const)("%s calling %s → 403", (plan, tier, message) => {
    const error = failure(() => resolveTier(tier, principal(plan)));
    expect(error.status).toBe(403);
    expect(error.type).toBe("permission_error");
    expect(error.message).toBe(message);
  });

  test("Enterprise includes smart-plus; unknown names are 404", () => {
    expect(resolveTier("smart-plus", principal("Enterprise"))).toBe("smart-plus");
    const error = failure(() => resolveTier("claude-opus", principal("Enterprise")));
    expect(error.status).toBe(404);
    expect(error.code).toBe("model_not_found");
  });
});

describe("clampEffort", () => {
  test.each([
    ["high", ["off", "low", "medium", "high", "max"], "high"],
    ["max", ["off", "low", "medium", "high"], "high"],
    ["off", ["low", "high"], "low"],
    ["medium", ["low", "high"], "low"],
    ["medium", ["high", "max"], "high"],
  ] as const)("%s within %p → %s", (wanted, supported, expected) => {
    expect(clampEffort(wanted, supported)).toBe(expected);
  });
});
