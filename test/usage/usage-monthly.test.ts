import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Database } from "../../src/db/client.ts";
import { MIGRATIONS_FOLDER, migrateDatabase } from "../../src/db/migrate.ts";
import type { NewUsageRecord } from "../../src/db/schema/usage.ts";
import { createUsageStore } from "../../src/usage/create-usage-store.ts";
import { loadMonthlySpend } from "../../src/usage/load-monthly-spend.ts";
import { loadMonthlyTokens } from "../../src/usage/load-monthly-tokens.ts";
import { monthDate } from "../../src/db/month-date.ts";
import { queryKeySpend } from "../../src/usage/query-key-spend.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

/**
 * `usage_monthly` is what the limiter and the admin API's key spend read. It is kept by a trigger,
 * so these tests write rows every way the gateway does and compare its sums with sums made here.
 */

let seq = 0;
function row(accountId: string, at: number, overrides: Partial<NewUsageRecord> = {}): NewUsageRecord {
  return {
    requestId: `req_${process.pid}_${seq++}`,
    accountId,
    keyId: "key_a",
    createdAt: new Date(at),
    endpoint: "messages",
    tier: "normal",
    status: 200,
    latencyMs: 3,
    inputTokens: 100,
    outputTokens: 10,
    cacheReadTokens: 5,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    costUsd: 0.25,
    ...overrides,
  };
}

type Sums = { billed: number; cost: number; requests: number };

/** The sums the trigger should keep, made from the rows in JavaScript: per account, UTC month and key ('' for none). */
function expectedSums(rows: readonly NewUsageRecord[]): Map<string, Sums> {
  const sums = new Map<string, Sums>();
  for (const r of rows) {
    const name = `${r.accountId}|${monthDate(r.createdAt)}|${r.keyId ?? ""}`;
    const s = sums.get(name) ?? { billed: 0, cost: 0, requests: 0 };
    if (!r.cacheHit && r.endpoint !== "count_tokens") s.billed += (r.inputTokens ?? 0) + (r.outputTokens ?? 0);
    s.cost += r.costUsd ?? 0;
    s.requests++;
    sums.set(name, s);
  }
  return sums;
}

async function storedSums(database: Database, accounts: readonly string[]): Promise<Map<string, Sums>> {
  const rows = await database.rows<{ account_id: string; month: string; key_id: string; billed: string; cost: number; requests: string }>(sql`
    select account_id, month::text as month, key_id, billed_tokens::text as billed, cost_usd as cost, requests::text as requests
    from usage_monthly where account_id in ${accounts} order by 1, 2, 3`);
  return new Map(rows.map((r) => [`${r.account_id}|${r.month}|${r.key_id}`, { billed: Number(r.billed), cost: r.cost, requests: Number(r.requests) }]));
}

function expectSame(stored: Map<string, Sums>, expected: Map<string, Sums>): void {
  expect([...stored.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [name, want] of expected) {
    const got = stored.get(name)!;
    expect({ name, billed: got.billed, requests: got.requests }).toEqual({ name, billed: want.billed, requests: want.requests });
    expect(got.cost).toBeCloseTo(want.cost, 9);
  }
}

const NOV = Date.UTC(2026, 10, 12, 8);
const OCT_LAST_MS = Date.UTC(2026, 10, 1) - 1;
const NOV_FIRST_MS = Date.UTC(2026, 10, 1);

describe("monthly usage sums", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase();
  }, DATABASE_HOOK_TIMEOUT_MS);
  afterAll(() => t.close(), DATABASE_HOOK_TIMEOUT_MS);

  test("count every stored row once, whichever way its batch arrived, and answer the limiter and the key spend", async () => {
    const store = createUsageStore(t.database);
    const first = [
      row("acct_m1", NOV),
      row("acct_m1", NOV, { keyId: "key_b", inputTokens: 2 ** 40, outputTokens: 3, costUsd: 1.5 }),
      row("acct_m1", NOV, { keyId: null, inputTokens: 7, outputTokens: 1 }),
      row("acct_m1", NOV, { cacheHit: true, inputTokens: 500, outputTokens: 500, costUsd: 0 }),
      row("acct_m1", NOV, { endpoint: "count_tokens", inputTokens: 900, outputTokens: 0, costUsd: 0 }),
      row("acct_m1", OCT_LAST_MS, { inputTokens: 11, outputTokens: 0 }),
      row("acct_m1", NOV_FIRST_MS, { inputTokens: 13, outputTokens: 0 }),
      row("acct_m2", NOV, { inputTokens: 1, outputTokens: 1 }),
    ];
    await store.insert(first);
    // A batch retried after it landed (on PGlite, the staging path), then one that is half new.
    await store.insert(first);
    const later = [row("acct_m1", NOV, { inputTokens: 20, outputTokens: 2 }), row("acct_m2", NOV, { keyId: "key_c" })];
    await store.insert([first[0]!, ...later, first[1]!]);

    const all = [...first, ...later];
    expectSame(await storedSums(t.database, ["acct_m1", "acct_m2"]), expectedSums(all));

    const november = new Date(NOV_FIRST_MS);
    const tokens = loadMonthlyTokens(t.database);
    // Keyed, keyless and the first millisecond of the month; no cache hit, no count, no October.
    expect(await tokens("acct_m1", november)).toBe(110 + 2 ** 40 + 3 + 8 + 13 + 22);
    expect(await tokens("acct_m1", new Date(Date.UTC(2026, 9, 1)))).toBe(11);
    expect(await tokens("acct_m2", november)).toBe(2 + 110);
    expect(await tokens("acct_none", november)).toBe(0);

    const spend = await queryKeySpend(t.database, "acct_m1", november);
    expect([...spend.keys()].sort()).toEqual(["key_a", "key_b"]);
    expect(spend.get("key_a")!.requests).toBe(5);
    expect(spend.get("key_a")!.costUsd).toBeCloseTo(0.25 * 3, 9);
    expect(spend.get("key_b")).toEqual({ requests: 1, costUsd: 1.5 });
    expect(await loadMonthlySpend(t.database)("acct_m1", "key_b", november)).toBe(1.5);
    expect(await loadMonthlySpend(t.database)("acct_m1", "key_none", november)).toBe(0);
  });

  test("batches written at the same time, touching the same months in different orders, all count", async () => {
    const store = createUsageStore(t.database);
    const accounts = ["acct_c1", "acct_c2", "acct_c3", "acct_c4"];
    const batches = Array.from({ length: 24 }, (_, b) =>
      Array.from({ length: 40 }, (_, i) => row(accounts[(b + i * (b % 2 === 0 ? 1 : 3)) % 4]!, NOV, { keyId: `key_${i % 3}`, inputTokens: b + i, outputTokens: 1 })),
    );
    await Promise.all(batches.map((batch) => store.insert(batch)));
    expectSame(await storedSums(t.database, accounts), expectedSums(batches.flat()));
  });
});

describe("the migration that adds monthly usage sums", () => {
  let t: TestDatabase;
  let folder: string;
  beforeAll(async () => {
    // The migrations before 0009, as a database that has not upgraded yet holds them.
    folder = await mkdtemp(join(tmpdir(), "routelane-migrations-before-monthly-"));
    await cp(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalPath = join(folder, "meta", "_journal.json");
    const journal = (await Bun.file(journalPath).json()) as { entries: Array<{ tag: string }> };
    const at = journal.entries.findIndex((entry) => entry.tag === "0009_usage_monthly");
    expect(at).toBeGreaterThan(0);
    await writeFile(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
    t = await openTestDatabase({ migrationsFolder: folder });
  }, DATABASE_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await t.close();
    await rm(folder, { recursive: true, force: true });
  }, DATABASE_HOOK_TIMEOUT_MS);

  test("sums the rows stored before it, and the rows after add to those sums", async () => {
    const before = [
      row("acct_u1", NOV),
      row("acct_u1", NOV, { keyId: null }),
      row("acct_u1", OCT_LAST_MS, { cacheHit: true }),
      row("acct_u2", NOV_FIRST_MS, { endpoint: "count_tokens" }),
    ];
    await createUsageStore(t.database).insert(before);
    const tables = await t.database.rows<{ n: number }>(sql`select count(*)::int as n from information_schema.tables where table_name = 'usage_monthly'`);
    expect(tables[0]!.n).toBe(0);

    await migrateDatabase(t.database);
    expectSame(await storedSums(t.database, ["acct_u1", "acct_u2"]), expectedSums(before));

    const after = [row("acct_u1", NOV, { inputTokens: 1000 })];
    await createUsageStore(t.database).insert(after);
    expectSame(await storedSums(t.database, ["acct_u1", "acct_u2"]), expectedSums([...before, ...after]));
    expect(await loadMonthlyTokens(t.database)("acct_u1", new Date(NOV_FIRST_MS))).toBe(110 + 110 + 1010);
  });
});
