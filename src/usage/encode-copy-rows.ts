import type { NewUsageRecord } from "../db/schema/usage.ts";

/** The columns of `usage_records` in the order `encodeCopyRows` writes them. */
export const COPY_COLUMNS = [
  "request_id",
  "account_id",
  "key_id",
  "created_at",
  "endpoint",
  "tier",
  "model",
  "effort",
  "source",
  "cache_hit",
  "status",
  "latency_ms",
  "ttfb_ms",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "cost_usd",
  "tokens_estimated",
] as const;

const NULL = "\\N";
const SPECIAL = /[\\\t\n\r]/;

/** A text value as COPY's text format reads it: backslash, tab, newline and return escaped. */
function text(value: string | null | undefined): string {
  if (value === null || value === undefined) return NULL;
  if (!SPECIAL.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
}

/** A number column: a missing or non-finite value (which Postgres would refuse) becomes the fallback. */
function num(value: number | null | undefined, fallback: number | null): string {
  if (value !== null && value !== undefined && Number.isFinite(value)) return String(value);
  return fallback === null ? NULL : String(fallback);
}

/**
 * Usage rows as the body of `COPY usage_records (COPY_COLUMNS) FROM ...` in text format: one line
 * per row, tab-separated, `\N` for null. The defaults are the table's (token counts and cost 0,
 * cache hit and estimated false), as the JSON insert's `coalesce` gives them.
 */
export function encodeCopyRows(rows: readonly NewUsageRecord[]): string {
  let out = "";
  for (const r of rows) {
    out +=
      `${text(r.requestId)}\t${text(r.accountId)}\t${text(r.keyId)}\t${r.createdAt.toISOString()}\t${text(r.endpoint)}\t${text(r.tier)}\t` +
      `${text(r.model)}\t${text(r.effort)}\t${text(r.source)}\t${r.cacheHit === true ? "t" : "f"}\t${num(r.status, 0)}\t` +
      `${num(r.latencyMs, 0)}\t${num(r.ttfbMs, null)}\t${num(r.inputTokens, 0)}\t${num(r.outputTokens, 0)}\t` +
      `${num(r.cacheReadTokens, 0)}\t${num(r.cacheWriteTokens, 0)}\t${num(r.reasoningTokens, 0)}\t${num(r.costUsd, 0)}\t${r.tokensEstimated === true ? "t" : "f"}\n`;
  }
  return out;
}
