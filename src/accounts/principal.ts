import type { Tier } from "../canonical/tier.ts";
import type { Plan, PlanLimits } from "./plans.ts";

/** Who is calling: what a valid key resolves to. Never holds the key itself. */
export interface Principal {
  readonly accountId: string;
  readonly keyId: string;
  readonly plan: Plan;
  readonly defaultTier: Tier;
  readonly suspended: boolean;
  /** Effective limits: the plan's, or the account's overrides on Enterprise. */
  readonly limits: PlanLimits;
}

/** Resolves presented keys. The warm path answers synchronously from memory (no database round trip). */
export interface KeyAuthenticator {
  /** null when the key is unknown or revoked. A suspended account still resolves (suspended: true). */
  authenticate(presentedKey: string): Principal | null | Promise<Principal | null>;
  close(): Promise<void>;
}
