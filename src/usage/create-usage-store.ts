import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import type { PgliteThread } from "../db/pglite-thread/open-pglite-thread.ts";
import type { NewUsageRecord } from "../db/schema/usage.ts";
import { COPY_COLUMNS, encodeBinaryCopyRows } from "./encode-binary-copy-rows.ts";

/** Where usage rows go. Inserting a row whose request id is already stored is a no-op. */
export interface UsageStore {
  insert(rows: readonly NewUsageRecord[]): Promise<void>;
}

/**
 * One statement per batch, `on conflict (request_id) do nothing`, so a retried batch that had
 * landed counts nothing twice. Rows never go through the query builder: building a multi-row
 * insert that way cost more CPU per row than everything else a request does.
 */
export function createUsageStore(database: Database): UsageStore {
  return database.driver.kind === "pglite" ? createPgliteStore(database.driver.client) : createJsonStore(database);
}

/**
 * The batch as the JSON store sends it, `createdAt` as its ISO text: an object holding a Date (whose
 * `toJSON` JSON.stringify must call) takes JSC's stringifier off its fast path, 0.75 against 0.25 ms
 * for 200 rows; converting the dates first costs a copy of each row and saves most of the rest.
 */
const toJsonBatch = (rows: readonly NewUsageRecord[]): string => JSON.stringify(rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })));

/**
 * The token counts as the binary COPY writes them (see encodeBinaryCopyRows): 0 when missing, the
 * integer part, within ±(2^53 - 1). Read as bigint, one fractional or huge count failed its whole
 * batch, which was retried without end while the buffer filled and new rows were dropped.
 */
const TOKEN_COUNTS = sql.raw(
  ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"]
    .map((name) => `trunc(least(greatest(coalesce("${name}", 0), -${Number.MAX_SAFE_INTEGER}), ${Number.MAX_SAFE_INTEGER}))::bigint`)
    .join(", "),
);

/** Postgres: the batch travels as one JSON parameter that the server unpacks (`json_to_recordset`). */
function createJsonStore(database: Database): UsageStore {
  return {
    async insert(rows) {
      if (rows.length === 0) return;
      await database.rows(sql`
        insert into usage_records (request_id, account_id, key_id, created_at, endpoint, tier, model, effort, source, cache_hit, status,
          latency_ms, ttfb_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, tokens_estimated)
        select "requestId", "accountId", "keyId", "createdAt", endpoint, tier, model, effort, source, coalesce("cacheHit", false), status,
          "latencyMs", "ttfbMs", ${TOKEN_COUNTS}, coalesce("costUsd", 0), coalesce("tokensEstimated", false)
        from json_to_recordset(${toJsonBatch(rows)}::json) as r(
          "requestId" text, "accountId" text, "keyId" text, "createdAt" timestamptz, endpoint text, tier text, model text, effort text,
          source text, "cacheHit" boolean, status integer, "latencyMs" double precision, "ttfbMs" double precision,
          "inputTokens" double precision, "outputTokens" double precision, "cacheReadTokens" double precision, "cacheWriteTokens" double precision,
          "reasoningTokens" double precision, "costUsd" double precision, "tokensEstimated" boolean)
        on conflict (request_id) do nothing`);
    },
  };
}

const COLUMNS = COPY_COLUMNS.join(", ");

/** Postgres's code for a unique violation: here, a request id that is stored already. */
const UNIQUE_VIOLATION = "23505";

/**
 * PGlite runs in the gateway's process (on a thread of its own), so its work is the gateway's CPU,
 * on the cores that serve requests. The batch is COPYed in binary straight into the table (see
 * encodeBinaryCopyRows for what binary saves over text): a staging table costs about 3 ms a batch
 * whatever its size. COPY cannot skip rows that are stored already, and in process a
 * batch that landed is almost never retried; when it is, the COPY fails as a whole on the duplicate
 * key and the batch goes through a temporary staging table and `on conflict do nothing` instead.
 */
function createPgliteStore(client: PgliteThread): UsageStore {
  let staged: Promise<unknown> | undefined;
  async function insertSkippingStored(blob: Blob): Promise<void> {
    staged ??= client.exec("create temp table if not exists usage_stage (like usage_records) on commit delete rows").catch((error: unknown) => {
      staged = undefined;
      throw error;
    });
    await staged;
    await client.transaction(async (tx) => {
      await tx.query(`copy usage_stage (${COLUMNS}) from '/dev/blob' with (format binary)`, [], { blob });
      await tx.query(`insert into usage_records (${COLUMNS}) select ${COLUMNS} from usage_stage on conflict (request_id) do nothing`);
    });
  }
  return {
    async insert(rows) {
      if (rows.length === 0) return;
      const blob = new Blob([encodeBinaryCopyRows(rows)]);
      try {
        await client.query(`copy usage_records (${COLUMNS}) from '/dev/blob' with (format binary)`, [], { blob });
      } catch (error) {
        if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
        await insertSkippingStored(blob);
      }
    },
  };
}
