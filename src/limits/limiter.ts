import type { Plan, PlanLimits } from "../canonical/plans.ts";
import type { KeyLimits } from "../accounts/principal.ts";
import type { GatewayError } from "../canonical/gateway-error.ts";

/** Who a request is limited as: the account and its effective limits, and the key's own (a Principal fits). */
export interface LimitSubject {
  readonly accountId: string;
  readonly plan: Plan;
  readonly limits: PlanLimits;
  readonly keyId?: string;
  /** The key's requests per minute and monthly spend cap; absent or null = none. */
  readonly keyLimits?: KeyLimits | null;
}

/** A held concurrency slot (and a counted request). */
export interface Lease {
  /** `x-ratelimit-*-requests` values for the response; empty when the account has no rpm cap. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Frees the concurrency slot. Idempotent: only the first call counts. A shared backend returns the
   * promise of the slot being free everywhere (it never rejects): awaited before an answer's last
   * byte, a client that sends its next request on that byte finds the slot free.
   */
  release(): void | Promise<void>;
}

export type LimitDecision = { readonly ok: true; readonly lease: Lease } | { readonly ok: false; readonly error: GatewayError };

/**
 * Plan limits for one request: requests per minute (sliding window), concurrent requests and the
 * calendar month's tokens (UTC). The memory backend answers synchronously after an account's
 * first request of the month; a Redis backend always answers with a promise.
 */
export interface Limiter {
  acquire(subject: LimitSubject): LimitDecision | Promise<LimitDecision>;
  /** Adds billed tokens to the account's monthly counter (call when a request has finished). */
  addTokens(accountId: string, tokens: number): void;
  /**
   * Adds a finished request's cost to its key's monthly spend (counted only for keys with a cap).
   * A shared backend counts only keys this process has seen with a cap, unless `unseen` says the
   * cost may come from a key it never served (a Smart+ job's model call, on whichever instance
   * runs the job).
   */
  addSpend(accountId: string, keyId: string, usd: number, unseen?: boolean): void;
  close(): Promise<void>;
}

/** Tokens the account has used in the month that starts at `monthStart` (recorded usage). */
export type MonthlyTokensLoader = (accountId: string, monthStart: Date) => Promise<number>;

/** USD a key has spent in the month that starts at `monthStart` (recorded usage). */
export type MonthlySpendLoader = (accountId: string, keyId: string, monthStart: Date) => Promise<number>;

/** The sliding window of the requests-per-minute limit. */
export const RPM_WINDOW_MS = 60_000;
