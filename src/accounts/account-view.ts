import type { Tier } from "../canonical/tier.ts";
import type { AccountRow } from "../db/schema/index.ts";
import { PLAN_LIMITS, type Plan, type PlanLimits } from "../canonical/plans.ts";

/** An account as the rest of the gateway sees it. */
export interface Account {
  readonly id: string;
  readonly plan: Plan;
  readonly defaultTier: Tier;
  readonly email: string | null;
  readonly suspended: boolean;
  /** Effective limits: the plan's, or the account's own values on Enterprise (null = no cap). */
  readonly limits: PlanLimits;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export function effectiveLimits(row: Pick<AccountRow, "plan" | "requestsPerMinute" | "concurrentRequests" | "tokensPerMonth">): PlanLimits {
  if (row.plan !== "Enterprise") return PLAN_LIMITS[row.plan];
  return {
    requestsPerMinute: row.requestsPerMinute,
    concurrentRequests: row.concurrentRequests,
    tokensPerMonth: row.tokensPerMonth,
  };
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    plan: row.plan,
    defaultTier: row.defaultTier,
    email: row.email,
    suspended: row.suspended,
    limits: effectiveLimits(row),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
