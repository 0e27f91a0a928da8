import type { RequestRecord } from "../canonical/request-record.ts";
import type { Limiter } from "../limits/limiter.ts";

/** The part of the limiter that finished requests are counted into. */
export type LimitCounter = Pick<Limiter, "addTokens"> & Partial<Pick<Limiter, "addSpend">>;

/** What of a finished request its account's limits count. */
type Chargeable = Pick<RequestRecord, "accountId" | "keyId" | "usage" | "cacheHit" | "endpoint">;

/**
 * Counts a finished request toward its account's limits: its billed tokens toward the monthly cap
 * (cache hits and token counts are free), `costUsd` toward its key's spend cap.
 */
export function chargeLimits(limiter: LimitCounter, record: Chargeable, costUsd: number): void {
  if (!record.accountId) return;
  if (record.usage && !record.cacheHit && record.endpoint !== "count_tokens") {
    limiter.addTokens(record.accountId, record.usage.inputTokens + record.usage.outputTokens);
  }
  // A Smart+ job's call may run on an instance that never served its key.
  if (record.keyId && costUsd) limiter.addSpend?.(record.accountId, record.keyId, costUsd, record.endpoint === "smartplus_job");
}
