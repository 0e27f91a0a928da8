import { bigint, boolean, date, doublePrecision, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per answered request, keyed by its request id, so that a batch retried after a database
 * blip never counts a request twice. Rows are written thousands a second, so each costs as little
 * as it can: one key index and the (account, time) index the monthly sums read, no surrogate id
 * and no foreign key. Accounts are suspended, never deleted, and a foreign-key check per row cost
 * about a fifth of the insert; with it, a row for a missing account would also fail its whole
 * batch on every retry.
 */
export const usageRecords = pgTable(
  "usage_records",
  {
    requestId: text("request_id").primaryKey(),
    accountId: text("account_id").notNull(),
    /** The key that made the request; null on Smart+ job calls and rows from before keys were recorded. */
    keyId: text("key_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    /** The called wire format: messages | chat | responses | count_tokens. */
    endpoint: text("endpoint").notNull(),
    tier: text("tier").notNull(),
    model: text("model"),
    effort: text("effort"),
    source: text("source"),
    cacheHit: boolean("cache_hit").notNull().default(false),
    status: integer("status").notNull(),
    latencyMs: doublePrecision("latency_ms").notNull(),
    ttfbMs: doublePrecision("ttfb_ms"),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    cacheReadTokens: bigint("cache_read_tokens", { mode: "number" }).notNull().default(0),
    cacheWriteTokens: bigint("cache_write_tokens", { mode: "number" }).notNull().default(0),
    reasoningTokens: bigint("reasoning_tokens", { mode: "number" }).notNull().default(0),
    /** The token counts are the gateway's own count: the upstream never said (a stream that ended early). */
    tokensEstimated: boolean("tokens_estimated").notNull().default(false),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
  },
  (table) => [
    index("usage_records_account_created_idx").on(table.accountId, table.createdAt),
    // Fleet-wide reports read a time range over every account. Rows arrive in about time order
    // (request ids start with their millisecond), so a BRIN index finds the range from a few
    // summary pages and costs next to nothing per insert, where a B-tree would add a second
    // tree to every write.
    index("usage_records_created_brin_idx").using("brin", table.createdAt),
  ],
);

export type UsageRecordRow = typeof usageRecords.$inferSelect;
export type NewUsageRecord = typeof usageRecords.$inferInsert;

/**
 * The usage rows summed per account, UTC month and key, kept by a statement trigger on
 * `usage_records` (migration 0009) so that every way rows arrive (the JSON insert, PGlite's COPY,
 * its staging table, a retried batch that inserts nothing) counts each stored row once. The limiter
 * reads an account's month from here at start: summing the rows themselves took seconds once an
 * account had millions of them, and every first request of that account waited for it.
 * `key_id` is '' for rows without a key (a primary key column cannot be null).
 */
export const usageMonthly = pgTable(
  "usage_monthly",
  {
    accountId: text("account_id").notNull(),
    /** The first day of the UTC month. */
    month: date("month", { mode: "string" }).notNull(),
    keyId: text("key_id").notNull().default(""),
    /** Input (cached included) plus output tokens of the rows the plan's token limit counts: no cache hits, no token counts. */
    billedTokens: bigint("billed_tokens", { mode: "number" }).notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.month, table.keyId] })],
);
