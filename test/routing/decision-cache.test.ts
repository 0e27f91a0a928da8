import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase, MEMORY_DATA_DIR, type Database } from "../../src/db/client.ts";
import type { Classification } from "../../src/routing/classify-task.ts";
import { createDecisionCache } from "../../src/routing/create-decision-cache.ts";
import { createPostgresDecisionStore } from "../../src/routing/create-postgres-decision-store.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const decision = (model: string): Classification => ({ taskClass: "coding", rule: "code", model, effort: "high" });
const DAY = 86_400_000;

describe("decision cache LRU", () => {
  test("keeps the most recently used entries within its size", () => {
    const cache = createDecisionCache({ ttlMs: DAY, lruSize: 2 });
    cache.put("a", decision("A"));
    cache.put("b", decision("B"));
    expect(cache.peek("a")?.model).toBe("A"); // a is now the most recent
    cache.put("c", decision("C"));
    expect([cache.peek("a")?.model, cache.peek("b"), cache.peek("c")?.model]).toEqual(["A", null, "C"]);
    expect(cache.size).toBe(2);
  });

  test("past its size it keeps seven eighths at once, the entries used last", () => {
    const cache = createDecisionCache({ ttlMs: DAY, lruSize: 16 });
    for (let i = 0; i < 16; i++) cache.put(`k${i}`, decision(`M${i}`));
    expect(cache.peek("k0")?.model).toBe("M0"); // k0 is now the most recent
    cache.put("k16", decision("M16"));
    expect(cache.size).toBe(14);
    expect([cache.peek("k0")?.model, cache.peek("k1"), cache.peek("k3"), cache.peek("k4")?.model, cache.peek("k16")?.model]).toEqual(["M0", null, null, "M4", "M16"]);
  });

  test("an entry expires after the TTL", () => {
    let now = 1_000;
    const cache = createDecisionCache({ ttlMs: 100, lruSize: 10, now: () => now });
    cache.put("a", decision("A"));
    now += 99;
    expect(cache.peek("a")?.model).toBe("A");
    now += 1;
    expect(cache.peek("a")).toBeNull();
  });

  test("a failing store neither throws nor loses the memory entry", async () => {
    const errors: unknown[] = [];
    const failing = {
      read: async () => Promise.reject(new Error("down")),
      write: async () => Promise.reject(new Error("down")),
      deleteExpired: async () => 0,
    };
    const cache = createDecisionCache({ ttlMs: DAY, lruSize: 10, store: failing, onError: (e) => errors.push(e) });
    cache.put("a", decision("A"));
    await cache.flush();
    expect(await cache.get("a")).toEqual(decision("A"));
    expect(await cache.get("missing")).toBeNull();
    expect(errors).toHaveLength(2);
  });

  test("a store read that never settles is a miss after the deadline, not a stalled request", async () => {
    const errors: unknown[] = [];
    const hanging = { read: () => new Promise<null>(() => {}), write: async () => {}, deleteExpired: async () => 0 };
    const cache = createDecisionCache({ ttlMs: DAY, lruSize: 10, store: hanging, onError: (e) => errors.push(e), readDeadlineMs: 20 });
    expect(await cache.get("missing")).toBeNull();
    expect(String(errors[0])).toContain("the decision store did not answer within 20 ms");
  });
});

describe(`decision cache over ${process.env.DATABASE_URL ? "Postgres" : "PGlite"}`, () => {
  let testDb: TestDatabase;
  let second: Database | undefined;
  beforeAll(async () => {
    testDb = await openTestDatabase();
  }, DATABASE_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await second?.close();
    await testDb.close();
  }, DATABASE_HOOK_TIMEOUT_MS);

  test("a decision survives a restart: a new cache over the same database reads it on a miss", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const first = createDecisionCache({ ttlMs: DAY, lruSize: 10, store: createPostgresDecisionStore(testDb.database), now: () => now });
    first.put("k1", decision("sim-normal"));
    await first.flush();
    // "Restart": a fresh cache, and on Postgres a fresh connection too.
    second = testDb.databaseUrl ? await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: MEMORY_DATA_DIR }) : undefined;
    const restarted = createDecisionCache({ ttlMs: DAY, lruSize: 10, store: createPostgresDecisionStore(second ?? testDb.database), now: () => now });
    expect(restarted.peek("k1")).toBeNull();
    expect(await restarted.get("k1")).toEqual(decision("sim-normal"));
    expect(restarted.peek("k1")).toEqual(decision("sim-normal")); // copied into memory
    // A write for the same key replaces the row.
    restarted.put("k1", { ...decision("sim-normal-b"), rule: null });
    await restarted.flush();
    const rows = await testDb.database.rows<{ model: string; rule: string | null }>(sql`select model, rule from routing_decisions where key = 'k1'`);
    expect(rows).toEqual([{ model: "sim-normal-b", rule: null }]);
    now += DAY + 1;
    const later = createDecisionCache({ ttlMs: DAY, lruSize: 10, store: createPostgresDecisionStore(testDb.database), now: () => now });
    expect(await later.get("k1")).toBeNull(); // expired rows are ignored
  });

  test("deleting the expired decisions keeps the rest", async () => {
    let now = Date.parse("2026-02-01T00:00:00Z");
    const store = createPostgresDecisionStore(testDb.database);
    const cache = createDecisionCache({ ttlMs: 1_000, lruSize: 10, store, now: () => now });
    cache.put("old", decision("A"));
    await cache.flush();
    now += 2_000;
    cache.put("new", decision("B"));
    await cache.flush();
    const deleted = await store.deleteExpired(new Date(now));
    expect(deleted).toBeGreaterThanOrEqual(1);
    const keys = await testDb.database.rows<{ key: string }>(sql`select key from routing_decisions where key in ('old', 'new') order by key`);
    expect(keys.map((r) => r.key)).toEqual(["new"]);
  });
});
