import type { NewUsageRecord } from "../db/schema/usage.ts";
import type { RequestRecord } from "../canonical/request-record.ts";

/** Refused by the gateway or the upstream (key, body, tier, plan limit): not served, so not usage. */
const refused = (status: number): boolean => status >= 400 && status < 500 && status !== 499;

/**
 * The `usage_records` row of a finished request; null when there is no account to charge (the key
 * was refused) or the request was refused: those stay in the request log and the metrics only. A
 * cache hit keeps its token counts for the record but costs nothing.
 */
export function toUsageRow(record: RequestRecord, costUsd: number): NewUsageRecord | null {
  if (!record.accountId || refused(record.status)) return null;
  const usage = record.usage;
  return {
    requestId: record.requestId,
    accountId: record.accountId,
    keyId: record.keyId ?? null,
    createdAt: new Date(record.startedAt),
    endpoint: record.endpoint,
    // A failure before the tier was known (the gateway's own) is still a request of the account.
    tier: record.tier ?? "none",
    model: record.model ?? null,
    effort: record.effort ?? null,
    source: record.source ?? null,
    cacheHit: record.cacheHit,
    status: record.status,
    latencyMs: record.latencyMs,
    ttfbMs: record.ttfbMs ?? null,
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    cacheReadTokens: usage?.cacheReadTokens ?? 0,
    cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    tokensEstimated: usage?.estimated === true,
    costUsd: record.cacheHit ? 0 : costUsd,
  };
}
