import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { sql } from "drizzle-orm";
import { monthWindow } from "../../src/limits/month-window.ts";
import { knobConfig, knobRequest, startKnobUpstream, type KnobFormat, type KnobUpstream, KNOB_FORMATS, KNOB_PATHS } from "../helpers/start-knob-upstream.ts";
import { deleteRedisKeys, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { usageRowOf } from "../helpers/usage-row.ts";
import { watchRedisCommands, type RedisCommandWatch } from "../helpers/watch-redis-commands.ts";

/**
 * With Redis, a stream that ends normally frees its slot and counts its tokens in one settle call:
 * its usage is known before its last bytes go out, so the tokens go with the slot instead of in a
 * second call once the record is reported. Whichever way a stream ends, the month's counter gets
 * exactly the tokens its usage row bills. Redis's own MONITOR counts the gateway's commands.
 */

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PREFIX = `routelane-test:${crypto.randomUUID().slice(0, 8)}:`;
const TIERS = ["fast", "normal", "smart"] as const;

let upstream: KnobUpstream;
let gw: TestGateway;
let redis: RedisClient;
let watch: RedisCommandWatch;
let key: string;
let accountId: string;

const tokensKey = (): string => `${PREFIX}limits:{${accountId}}:tokens:${monthWindow(Date.now()).key}`;
const monthTokens = async (): Promise<number> => Number((await redis.send("GET", [tokensKey()])) ?? 0);

async function send(format: KnobFormat, tier: string, text: string, apiKey = key): Promise<Response> {
  const response = await fetch(gw.url + KNOB_PATHS[format], {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(knobRequest(format, tier, text)),
  });
  expect(response.status).toBe(200);
  return response;
}

/** The limiter's script calls (acquire and settle) since the watch was cleared, once the request's usage row is stored. */
async function settledCalls(requestId: string): Promise<{ calls: number; billed: number }> {
  const row = await usageRowOf(gw, requestId);
  await watch.sync();
  const calls = watch.commands(`${PREFIX}limits:`).filter((words) => words[0] === "EVALSHA" || words[0] === "EVAL").length;
  return { calls, billed: row.input + row.output };
}

describe.skipIf(!process.env.REDIS_URL)("with Redis, a stream's slot and tokens settle together", () => {
  beforeAll(async () => {
    upstream = startKnobUpstream();
    gw = await startTestGateway({ fileConfig: { ...knobConfig(upstream.url), redis: { keyPrefix: PREFIX } }, env: { REDIS_URL } });
    ({ accountId, key } = await gw.account("Enterprise"));
    // A monthly cap, so the month's counter is kept (and seeded by the first request).
    await gw.store.updateAccount(accountId, { limits: { concurrentRequests: 4, requestsPerMinute: null, tokensPerMonth: 100_000_000 } });
    redis = new RedisClient(REDIS_URL);
    watch = await watchRedisCommands(REDIS_URL);
    const first = await send("messages", "normal", "seed the month [knob words=2]");
    await first.text();
    await usageRowOf(gw, first.headers.get("x-router-request-id")!);
  }, 30_000);

  afterAll(async () => {
    watch?.stop();
    await gw?.stop();
    upstream?.stop();
    redis?.close();
    await deleteRedisKeys(REDIS_URL, PREFIX);
  }, 30_000);

  for (const format of KNOB_FORMATS) {
    for (const tier of TIERS) {
      test(`${format} on ${tier}: a stream that ends normally takes one call to acquire and one to settle`, async () => {
        const before = await monthTokens();
        watch.clear();
        const response = await send(format, tier, `settle once [knob words=7]`);
        await response.text();
        const { calls, billed } = await settledCalls(response.headers.get("x-router-request-id")!);
        expect(billed).toBeGreaterThan(7);
        expect((await monthTokens()) - before).toBe(billed);
        expect(calls).toBe(2);
      });
    }
  }

  test.each([
    ["same-format", "normal"],
    ["translated", "fast"],
  ] as const)("a key with a spend cap (%s): its stream's cost goes in the same call, once", async (_path, tier) => {
    const issued = (await gw.store.issueKey(accountId, { monthlySpendUsd: 1_000 }))!;
    const spendKey = `${PREFIX}limits:{${accountId}}:key:${issued.id}:spend:${monthWindow(Date.now()).key}`;
    const spent = async (): Promise<number> => Number((await redis.send("GET", [spendKey])) ?? 0);
    // The key's first request seeds its spend counter.
    const seed = await send("messages", tier, "seed the key [knob words=2]", issued.key);
    await seed.text();
    await usageRowOf(gw, seed.headers.get("x-router-request-id")!);
    const before = { tokens: await monthTokens(), spend: await spent() };
    watch.clear();
    const response = await send("messages", tier, "costs [knob words=7 inputTokens=4000]", issued.key);
    await response.text();
    const requestId = response.headers.get("x-router-request-id")!;
    const { calls, billed } = await settledCalls(requestId);
    const [row] = await gw.testDatabase.database.rows<{ cost: number }>(sql`select cost_usd as cost from usage_records where request_id = ${requestId}`);
    expect(row!.cost).toBeGreaterThan(0);
    expect((await spent()) - before.spend).toBe(Math.round(row!.cost * 1e6));
    expect((await monthTokens()) - before.tokens).toBe(billed);
    expect(calls).toBe(2);
  });

  test.each([
    ["same-format", "normal"],
    ["translated", "fast"],
  ] as const)("an upstream error mid-stream (%s) is billed as its usage row says", async (_path, tier) => {
    const before = await monthTokens();
    const response = await send("messages", tier, "fails [knob words=9 errorAt=6]");
    expect(await response.text()).toContain("overloaded");
    const { billed } = await settledCalls(response.headers.get("x-router-request-id")!);
    expect(billed).toBeGreaterThan(0);
    expect((await monthTokens()) - before).toBe(billed);
  });

  test.each([
    ["same-format", "normal"],
    ["translated", "fast"],
  ] as const)("a client that leaves mid-stream (%s) is billed as its usage row says", async (_path, tier) => {
    const before = await monthTokens();
    const response = await send("messages", tier, "left [knob words=9 pauseAfter=4 pauseMs=400]");
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    const { billed } = await settledCalls(response.headers.get("x-router-request-id")!);
    expect(billed).toBeGreaterThan(0);
    expect((await monthTokens()) - before).toBe(billed);
  });
});
