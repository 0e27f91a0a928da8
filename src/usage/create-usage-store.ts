import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import type { NewUsageRecord } from "../db/schema/usage.ts";

/** Where usage rows go. Inserting a row whose request id is already stored is a no-op. */
export interface UsageStore {
  insert(rows: readonly NewUsageRecord[]): Promise<void>;
}

/**
 * The Postgres/PGlite store: one statement per batch, `on conflict (request_id) do nothing`. The
 * batch travels as one JSON parameter that the database unpacks (`json_to_recordset`): building a
 * multi-row insert through the query builder cost more CPU per row than everything else a
 * request does, on the gateway's own thread.
 */
export function createUsageStore(database: Database): UsageStore {
  return {
    async insert(rows) {
      if (rows.length === 0) return;
      await database.rows(sql`
        insert into usage_records (request_id, account_id, created_at, endpoint, tier, model, effort, source, cache_hit, status,
          latency_ms, ttfb_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)
        select "requestId", "accountId", "createdAt", endpoint, tier, model, effort, source, coalesce("cacheHit", false), status,
          "latencyMs", "ttfbMs", coalesce("inputTokens", 0), coalesce("outputTokens", 0), coalesce("cacheReadTokens", 0),
          coalesce("cacheWriteTokens", 0), coalesce("reasoningTokens", 0), coalesce("costUsd", 0)
        from json_to_recordset(${JSON.stringify(rows)}::json) as r(
          "requestId" text, "accountId" text, "createdAt" timestamptz, endpoint text, tier text, model text, effort text,
          source text, "cacheHit" boolean, status integer, "latencyMs" double precision, "ttfbMs" double precision,
          "inputTokens" bigint, "outputTokens" bigint, "cacheReadTokens" bigint, "cacheWriteTokens" bigint,
          "reasoningTokens" bigint, "costUsd" double precision)
        on conflict (request_id) do nothing`);
    },
  };
}
