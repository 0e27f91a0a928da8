import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { BENCH_REDIS_PREFIX, deleteBenchRedisKeys } from "../../src/bench/bench-redis-prefix.ts";
import { measureModuleCosts, type CostRow } from "../../src/bench/measure-module-costs.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

let db: TestDatabase;
let rows: CostRow[];

beforeAll(async () => {
  db = await openTestDatabase();
  // Cells are not counted: each count walks the whole heap, and this process holds every test file
  // run before it (the suite's run took the hook past a minute). countAllocatedCells has its own test.
  rows = await measureModuleCosts({ database: db.database, redisUrl: process.env.REDIS_URL, formats: ["messages", "chat"], calls: { warmup: 20, iterations: 50, rounds: 1, countCells: false }, loadedInFlight: 8 });
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await db.close();
  // As the bench does at its end: the limiter's month counters would otherwise stay 40 days.
  if (process.env.REDIS_URL) await deleteBenchRedisKeys(process.env.REDIS_URL);
}, DATABASE_HOOK_TIMEOUT_MS);

describe("measureModuleCosts", () => {
  test("with `countCells` false no part counts the cells its call allocates", () => {
    expect(rows.length).toBeGreaterThan(30);
    expect(rows.filter((row) => row.cells !== undefined).map((row) => row.id)).toEqual([]);
  });

  test("times every part the issue names: the shared ones once, the per-format ones per format, the big body's", () => {
    const ids = rows.map((r) => r.id);
    expect(ids).toEqual(expect.arrayContaining(["auth", "limits", "usage-row", "request-log", "metrics", "body-check/1m", "body-check/1m-new", "routing/1m", "routing/1m-new", "cache/1m"]));
    for (const format of ["messages", "chat"]) {
      for (const part of ["body-check", "routing", "cache", "same-format-json", "same-format-stream", "same-format-trickled", "translation-json", "translation-stream", "translation-long"]) {
        expect(ids).toContain(`${part}/${format}`);
      }
    }
    expect(ids.some((id) => id.endsWith("/responses"))).toBe(false);
    expect(new Set(rows.map((r) => r.part))).toEqual(
      new Set(["auth", "body check", "limits", "routing", "cache key + store", "usage row", "request log", "metrics", "same-format answer", "translation"]),
    );
  });

  test("the limiter is the run's backend, and the targets an issue set are kept: the limits' 30 µs only on the in-process backend it was set for", () => {
    const limits = rows.find((r) => r.id === "limits");
    if (process.env.REDIS_URL) expect(limits).toMatchObject({ targetP50Us: undefined, note: "limiter redis; the 30 µs p50 target is the in-process backend's" });
    else expect(limits).toMatchObject({ targetP50Us: 30, note: "limiter memory" });
    expect(rows.find((r) => r.id === "routing/chat")!.targetP50Us).toBe(50);
  });

  test("with Redis, the limits, the routing and the cache store are timed again with the path rows' calls under way, through Redis as the gateway's go", async () => {
    const loadedIds = ["limits/loaded", "routing/messages/loaded", "routing/chat/loaded", "cache/messages/loaded", "cache/chat/loaded"];
    const loaded = rows.filter((r) => r.id.endsWith("/loaded"));
    if (!process.env.REDIS_URL) {
      expect(loaded).toEqual([]);
      return;
    }
    expect(loaded.map((r) => r.id).sort()).toEqual(loadedIds.sort());
    for (const row of loaded) {
      expect(row).toMatchObject({ calls: 50, targetP50Us: undefined });
      expect(row.label).toContain("8 calls under way");
    }
    // The pins and the stored answers are in Redis: the rows timed its commands, not a memory's.
    const client = new RedisClient(process.env.REDIS_URL);
    const count = async (pattern: string): Promise<number> => {
      let cursor = "0";
      let found = 0;
      do {
        const [next, keys] = (await client.send("SCAN", [cursor, "MATCH", `${BENCH_REDIS_PREFIX}costs:${pattern}`, "COUNT", "1000"])) as [string, string[]];
        cursor = next;
        found += keys.length;
      } while (cursor !== "0");
      return found;
    };
    try {
      // The two formats' bodies are one conversation: one pin.
      expect(await count("pin:*")).toBe(1);
      // Each call a new answer, warm-up included, for each format.
      expect(await count("rc:*")).toBeGreaterThanOrEqual(2 * (20 + 50));
    } finally {
      client.close();
    }
  });

  test("the streams read are whole answers from the sim, and the long one has its 2,000 events", () => {
    expect(rows.find((r) => r.id === "same-format-stream/messages")!.label).toMatch(/· \d{2} events/);
    expect(rows.find((r) => r.id === "translation-long/messages")!.label).toMatch(/· 20\d\d events/);
    // The trickled answer, an event a read, beside a bare direct stream on the same reads.
    const trickled = rows.find((r) => r.id === "same-format-trickled/messages")!;
    expect(trickled.label).toMatch(/· 8 × 2\d\d events one a read/);
    expect(trickled.note).toMatch(/^a bare direct stream on the same reads \d+ µs; the pipe -?\d+\.\d\d µs an event beyond it$/);
    expect(trickled.sink).toBeGreaterThan(20_000 * trickled.calls);
  });

  test("every row did its calls and kept what they returned", () => {
    for (const row of rows) {
      expect(row.meanUs).toBeGreaterThan(0);
      expect(row.sink).toBeGreaterThan(0);
    }
    expect(rows.find((r) => r.id === "auth")!.calls).toBe(50);
    // The usage row is process CPU over every row written; the others are timed call by call.
    expect(rows.find((r) => r.id === "usage-row")).toMatchObject({ calls: 50, p50Us: undefined });
  });
});
