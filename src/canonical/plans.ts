import type { Tier } from "./tier.ts";

export const PLANS = ["Starter", "Pro", "Enterprise"] as const;
export type Plan = (typeof PLANS)[number];

/** Tiers each plan may call, in the order the models endpoint lists them. */
export const PLAN_TIERS: Readonly<Record<Plan, readonly Tier[]>> = {
  Starter: ["fast", "normal"],
  Pro: ["fast", "normal", "smart"],
  Enterprise: ["fast", "normal", "smart", "smart-plus"],
};

/** null = no cap. */
export interface PlanLimits {
  readonly requestsPerMinute: number | null;
  readonly concurrentRequests: number | null;
  readonly tokensPerMonth: number | null;
}

/** Enterprise values are per account (set with the admin API); these are the defaults until set. */
export const PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  Starter: { requestsPerMinute: 60, concurrentRequests: 4, tokensPerMonth: 20_000_000 },
  Pro: { requestsPerMinute: 300, concurrentRequests: 16, tokensPerMonth: null },
  Enterprise: { requestsPerMinute: null, concurrentRequests: null, tokensPerMonth: null },
};
