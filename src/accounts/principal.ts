import type { Tier } from "../canonical/tier.ts";
import type { Plan, PlanLimits } from "../canonical/plans.ts";

/** Who is calling: what a valid key resolves to. Never holds the key itself. */
export interface Principal {
  readonly accountId: string;
  readonly keyId: string;
  readonly plan: Plan;
  readonly defaultTier: Tier;
  readonly suspended: boolean;
  /** Effective limits: the plan's, or the account's overrides on Enterprise. */
  readonly limits: PlanLimits;
  /** The key's own controls; absent or null when it has none (most keys: nothing more is checked). */
  readonly keyLimits?: KeyLimits | null;
}

/** Controls set on one key, within what its plan allows. */
export interface KeyLimits {
  /** The tiers the key may call (a subset of the plan's); null = all of the plan's. */
  readonly allowedTiers: readonly Tier[] | null;
  /** The key's own requests per minute, on top of the account's; null = none. */
  readonly requestsPerMinute: number | null;
  /** The most the key may spend in a calendar month (UTC), in USD at the models' prices; null = no cap. */
  readonly monthlySpendUsd: number | null;
}

/** Resolves presented keys. The warm path answers synchronously from memory (no database round trip). */
export interface KeyAuthenticator {
  /** null when the key is unknown or revoked. A suspended account still resolves (suspended: true). */
  authenticate(presentedKey: string): Principal | null | Promise<Principal | null>;
  close(): Promise<void>;
}
