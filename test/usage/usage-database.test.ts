import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createAccountStore } from "../../src/accounts/account-store.ts";
import type { Usage } from "../../src/canonical/usage.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import type { RequestRecord } from "../../src/canonical/request-record.ts";
import { createUsageObserver } from "../../src/usage/create-usage-observer.ts";
import { createUsageStore, type UsageStore } from "../../src/usage/create-usage-store.ts";
import { createUsageWriter } from "../../src/usage/create-usage-writer.ts";
import { loadMonthlyTokens } from "../../src/usage/load-monthly-tokens.ts";
import { parseMonth, queryMonthlyUsage } from "../../src/usage/query-monthly-usage.ts";
import { newRequestId } from "../../src/pipeline/new-request-id.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

let t: TestDatabase;
let accountId: string;
let otherId: string;
const config = loadConfig({});

beforeAll(async () => {
  t = await openTestDatabase();
  const store = createAccountStore(t.database);
  accountId = (await store.createAccount({ plan: "Pro" })).account.id;
  otherId = (await store.createAccount({ plan: "Starter" })).account.id;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await t.close();
}, DATABASE_HOOK_TIMEOUT_MS);

const usage = (input: number, output: number, read = 0, write = 0, reasoning = 0): Usage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: read,
  cacheWriteTokens: write,
  reasoningTokens: reasoning,
});

let seq = 0;
function record(overrides: Partial<RequestRecord>): RequestRecord {
  return {
    requestId: `req_${process.pid}_${seq++}`,
    startedAt: Date.UTC(2026, 10, 10, 12),
    endpoint: "messages",
    stream: false,
    accountId,
    plan: "Pro",
    tier: "normal",
    model: "sim-normal",
    effort: "medium",
    source: "default",
    status: 200,
    clientAborted: false,
    latencyMs: 12.5,
    cacheHit: false,
    attempts: 1,
    warnings: [],
    ...overrides,
  };
}

describe("usage in the database", () => {
  test("rows written by the observer and writer; totals by tier and model; the month's billed tokens", async () => {
    const writer = createUsageWriter({ store: createUsageStore(t.database), batchRows: 2, flushIntervalMs: 10, maxBufferRows: 1000 });
    const added: Array<[string, number]> = [];
    const observe = createUsageObserver({ writer, models: config.models, limiter: { addTokens: (id, n) => void added.push([id, n]) } });
    observe(record({ usage: usage(1000, 200, 400, 100, 50) }));
    observe(record({ usage: usage(10, 20) }));
    observe(record({ tier: "fast", model: "sim-fast", usage: usage(100, 100) }));
    observe(record({ usage: usage(500, 500), cacheHit: true }));
    observe(record({ endpoint: "count_tokens", model: undefined, usage: undefined }));
    observe(record({ status: 429, tier: undefined, model: undefined, effort: undefined, source: undefined, errorType: "rate_limit_error" })); // refused: no row
    observe(record({ usage: usage(7, 7), startedAt: Date.UTC(2026, 9, 31, 23, 59) })); // October
    observe(record({ accountId: otherId, usage: usage(9, 9) }));
    observe(record({ accountId: undefined, status: 401 })); // refused key: no row
    await writer.close();

    expect(added).toEqual([
      [accountId, 1200],
      [accountId, 30],
      [accountId, 200],
      [accountId, 14],
      [otherId, 18],
    ]);

    const november = await queryMonthlyUsage(t.database, accountId, "2026-11");
    expect(november.totals.requests).toBe(5);
    // A cache hit's tokens are not billable: it is counted in cache_hits alone.
    expect(november.totals.input_tokens).toBe(1110);
    expect(november.totals.output_tokens).toBe(320);
    expect(november.totals.cache_read_input_tokens).toBe(400);
    expect(november.totals.cache_creation_input_tokens).toBe(100);
    expect(november.totals.reasoning_tokens).toBe(50);
    expect(november.totals.cache_hits).toBe(1);
    // The refused 429 left no row: no error among the rows.
    expect(november.totals.errors).toBe(0);
    // sim-normal prices: input 1, output 5, cacheRead 0.1, cacheWrite 1.25 per million; sim-fast 0.25/1.25.
    const normalCost = (500 * 1 + 400 * 0.1 + 100 * 1.25 + 200 * 5) / 1e6 + (10 + 20 * 5) / 1e6;
    const fastCost = (100 * 0.25 + 100 * 1.25) / 1e6;
    expect(november.totals.cost_usd).toBeCloseTo(normalCost + fastCost, 9);
    expect(november.by_tier.map((r) => [r.tier, r.requests])).toEqual([
      ["fast", 1],
      ["normal", 4],
    ]);
    expect(november.by_model.map((r) => [r.model, r.requests, r.input_tokens])).toEqual([
      ["sim-fast", 1, 100],
      ["sim-normal", 3, 1010],
      [null, 1, 0],
    ]);
    expect((await queryMonthlyUsage(t.database, accountId, "2026-10")).totals.requests).toBe(1);
    expect((await queryMonthlyUsage(t.database, accountId, "2026-12")).totals).toMatchObject({ requests: 0, cost_usd: 0 });

    // Billed: no cache hits, no counts, only this month and this account.
    const load = loadMonthlyTokens(t.database);
    expect(await load(accountId, new Date(Date.UTC(2026, 10, 1)))).toBe(1200 + 30 + 200);
    expect(await load(accountId, new Date(Date.UTC(2026, 9, 1)))).toBe(14);
    expect(await load(otherId, new Date(Date.UTC(2026, 10, 1)))).toBe(18);
  });

  test("a batch retried after it landed does not count twice (unique request id)", async () => {
    const store = createUsageStore(t.database);
    const rows = [record({ accountId: otherId, startedAt: Date.UTC(2027, 0, 5), usage: usage(1, 1) })];
    const writer = createUsageWriter({ store, batchRows: 10, flushIntervalMs: 10, maxBufferRows: 10 });
    const observe = createUsageObserver({ writer, models: config.models });
    observe(rows[0]!);
    observe(rows[0]!);
    await writer.close();
    expect((await queryMonthlyUsage(t.database, otherId, "2027-01")).totals.requests).toBe(1);
  });

  test("the database orders gateway request ids by the time they were made", async () => {
    const writer = createUsageWriter({ store: createUsageStore(t.database), batchRows: 50, flushIntervalMs: 10, maxBufferRows: 1000 });
    const observe = createUsageObserver({ writer, models: config.models });
    const start = Date.UTC(2027, 1, 3, 9);
    // Ten ids per millisecond over 40 ms, recorded in a shuffled order.
    const ids = Array.from({ length: 400 }, (_, i) => newRequestId(start + Math.floor(i / 10)));
    const shuffled = ids.map((id, i) => [id, (i * 7919) % 400] as const).sort((a, b) => a[1] - b[1]);
    for (const [requestId] of shuffled) observe(record({ requestId, accountId: otherId, startedAt: start }));
    await writer.close();
    const rows = await t.database.rows<{ request_id: string }>(
      sql`select request_id from usage_records where account_id = ${otherId} and created_at = ${new Date(start).toISOString()} order by request_id`,
    );
    const millisecond = (id: string) => id.slice(0, 8);
    expect(rows.map((r) => millisecond(r.request_id))).toEqual(ids.map(millisecond));
  });

  test("text with tabs, newlines, backslashes and non-ASCII characters, counts past 2^32, fractions and null columns come back as written", async () => {
    const store = createUsageStore(t.database);
    const row = {
      requestId: `req_${process.pid}_awkward`,
      accountId: otherId,
      keyId: null,
      createdAt: new Date(Date.UTC(2027, 1, 3, 4, 5, 6, 789)),
      endpoint: "chat",
      tier: "fast",
      model: "odd\tname\nwith\\ \\N modèle ✓ 模型 😀",
      effort: null,
      source: "tab\there",
      cacheHit: true,
      status: 499,
      latencyMs: 1.5,
      ttfbMs: null,
      inputTokens: 2 ** 40 + 7,
      outputTokens: 4,
      cacheReadTokens: 0,
      cacheWriteTokens: 9,
      reasoningTokens: 1,
      costUsd: 0.000123,
      tokensEstimated: true,
    };
    await store.insert([row]);
    await store.insert([row]);
    const back = await t.database.rows<Record<string, unknown>>(
      sql`select key_id, model, effort, source, cache_hit, status, latency_ms, ttfb_ms, created_at, input_tokens::text as input, output_tokens::int as output,
            cache_write_tokens::int as "cacheWrite", cost_usd, tokens_estimated from usage_records where request_id = ${row.requestId}`,
    );
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({
      key_id: null,
      model: row.model,
      effort: null,
      source: row.source,
      cache_hit: true,
      status: 499,
      latency_ms: 1.5,
      ttfb_ms: null,
      input: String(2 ** 40 + 7),
      output: 4,
      cacheWrite: 9,
      cost_usd: 0.000123,
      tokens_estimated: true,
    });
    expect(new Date(back[0]!.created_at as string).getTime()).toBe(row.createdAt.getTime());
  });

  // On Postgres such a row failed its whole batch, which was then retried without end while the
  // buffer filled and new rows were dropped; PGlite's binary COPY stores them as its encoder does.
  test("a fractional or huge token count is stored as its integer part within 2^53, and its batch lands", async () => {
    const store = createUsageStore(t.database);
    const at = new Date(Date.UTC(2027, 2, 4));
    const rows = [
      { requestId: `req_${process.pid}_fraction`, inputTokens: 12.5, outputTokens: 41.9, reasoningTokens: 1e20 },
      { requestId: `req_${process.pid}_plain`, inputTokens: 3, outputTokens: 4, reasoningTokens: 0 },
    ].map((counts) => ({ ...counts, accountId: otherId, createdAt: at, endpoint: "messages", tier: "fast", status: 200, latencyMs: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }));
    await store.insert(rows);
    const back = await t.database.rows<{ request_id: string; input: string; output: string; reasoning: string }>(
      sql`select request_id, input_tokens::text as input, output_tokens::text as output, reasoning_tokens::text as reasoning
            from usage_records where request_id in (${rows[0]!.requestId}, ${rows[1]!.requestId}) order by request_id`,
    );
    expect(back).toEqual([
      { request_id: rows[0]!.requestId, input: "12", output: "41", reasoning: String(Number.MAX_SAFE_INTEGER) },
      { request_id: rows[1]!.requestId, input: "3", output: "4", reasoning: "0" },
    ]);
  });

  test.each([
    ["2026-11", true],
    ["2026-1", false],
    ["2026-13", false],
    ["26-11", false],
    ["2026-11-01", false],
  ])("parseMonth(%p)", (month, ok) => {
    expect(parseMonth(month) !== null).toBe(ok);
  });
});

describe("usage during a database blip", () => {
  test("inserts fail for a while, some after landing: after the flush, one row per request, none twice", async () => {
    const real = createUsageStore(t.database);
    let phase: "up" | "down" | "lands-then-fails" = "up";
    const store: UsageStore = {
      async insert(rows) {
        if (phase === "down") throw new Error("connection refused");
        await real.insert(rows);
        if (phase === "lands-then-fails") throw new Error("connection reset after commit");
      },
    };
    const logs: string[] = [];
    const writer = createUsageWriter({ store, batchRows: 50, flushIntervalMs: 5, maxBufferRows: 100_000, retryMinMs: 10, retryMaxMs: 50, log: (l) => logs.push(l) });
    const observe = createUsageObserver({ writer, models: config.models });
    const startedAt = Date.UTC(2027, 5, 1);
    for (let i = 0; i < 3000; i++) {
      if (i === 1000) phase = "down";
      if (i === 1800) phase = "lands-then-fails";
      if (i === 2200) phase = "up";
      observe(record({ accountId: otherId, startedAt, usage: usage(1, 1) }));
      if (i % 100 === 0) await Bun.sleep(2);
    }
    await writer.close(30_000);
    expect(writer.backlog).toBe(0);
    expect(writer.dropped).toBe(0);
    expect((await queryMonthlyUsage(t.database, otherId, "2027-06")).totals.requests).toBe(3000);
    expect(logs.some((l) => l.includes("retrying with backoff"))).toBe(true);
  }, 60_000);
});
