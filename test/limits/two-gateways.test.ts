/**
 * End to end: two gateway processes sharing one Postgres and one Redis enforce one account's limits
 * together (needs DATABASE_URL and Redis, as in CI).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountStore, type AccountStore } from "../../src/accounts/account-store.ts";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { spawnGateway, type SpawnedGateway } from "../helpers/spawn-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PREFIX = `rltest:${process.pid}:${crypto.randomUUID().slice(0, 8)}:`;
const shared = process.env.DATABASE_URL !== undefined;

let t: TestDatabase;
let store: AccountStore;
let dir: string;
const gateways: SpawnedGateway[] = [];

describe.skipIf(!shared)("two gateways, one Postgres, one Redis", () => {
  beforeAll(async () => {
    t = await openTestDatabase();
    store = createAccountStore(t.database);
    dir = mkdtempSync(join(tmpdir(), "routelane-two-"));
    const configPath = join(dir, "config.json");
    writeFileSync(configPath, JSON.stringify({ ...DEFAULT_CONFIG, redis: { keyPrefix: PREFIX } }));
    for (const name of ["a", "b"]) {
      gateways.push(
        await spawnGateway(
          { PORT: "0", DATABASE_URL: t.databaseUrl, REDIS_URL, ROUTELANE_CONFIG: configPath, ROUTELANE_DATA_DIR: join(dir, name), ROUTELANE_LOG_LEVEL: "warn" },
          false,
        ),
      );
    }
  }, DATABASE_HOOK_TIMEOUT_MS);

  afterAll(async () => {
    for (const g of gateways) g.process.kill();
    await Promise.all(gateways.map((g) => g.process.exited));
    const redis = new RedisClient(REDIS_URL);
    const keys = (await redis.send("KEYS", [`${PREFIX}*`])) as string[];
    if (keys.length > 0) await redis.send("DEL", keys);
    redis.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  }, DATABASE_HOOK_TIMEOUT_MS);

  /** Waits until the account holds `n` concurrency slots in Redis (a request counts once its slot is held, not on arrival). */
  const untilSlotsHeld = async (accountId: string, n: number): Promise<void> => {
    const redis = new RedisClient(REDIS_URL);
    try {
      for (let i = 0; i < 400; i++) {
        const held = Number(await redis.send("ZCARD", [`${PREFIX}limits:{${accountId}}:conc`]));
        if (held >= n) return;
        await Bun.sleep(25);
      }
    } finally {
      redis.close();
    }
  };
  const accountIds = new Map<string, string>();
  const accountIdOf = (key: string): string => accountIds.get(key)!;

  const call = (i: number, key: string, text: string, init: { stream?: boolean; signal?: AbortSignal } = {}) =>
    fetch(`${gateways[i % 2]!.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "fast", max_tokens: 64, stream: init.stream ?? false, messages: [{ role: "user", content: text }] }),
      signal: init.signal,
    });

  test("the 61st request of a Starter account in a minute is refused, whichever gateway gets it", async () => {
    const { key } = (await store.createAccount({ plan: "Starter" })).key;
    for (let i = 0; i < 60; i++) {
      const res = await call(i, key, `request ${i} [sim words=3]`);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining-requests")).toBe(String(59 - i));
      await res.text();
    }
    const refused = await call(60, key, "one too many");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe("rate limit of 60 requests per minute for plan Starter exceeded");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-ratelimit-limit-requests")).toBe("60");
  });

  test("the 5th concurrent stream of a Starter account is refused across the pair; an aborted stream frees its slot", async () => {
    const created = await store.createAccount({ plan: "Starter" });
    const { key } = created.key;
    accountIds.set(key, created.account.id);
    const aborts = Array.from({ length: 4 }, () => new AbortController());
    // The sim holds each stream back 20 s before its first byte, so all four hold a slot meanwhile.
    const open = aborts.map((c, i) => call(i, key, `slow ${i} [sim delay=20000]`, { stream: true, signal: c.signal }).catch(() => null));
    await untilSlotsHeld(accountIdOf(key), 4);
    const fifth = await call(1, key, "fifth");
    expect(fifth.status).toBe(429);
    expect(((await fifth.json()) as { error: { message: string } }).error.message).toBe("concurrency limit of 4 concurrent requests for plan Starter exceeded");
    aborts[0]!.abort();
    let status = 0;
    for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
      await Bun.sleep(50);
      const res = await call(attempt, key, "after abort [sim words=3]");
      status = res.status;
      await res.text();
    }
    expect(status).toBe(200);
    for (const c of aborts) c.abort();
    await Promise.all(open);
  });
});
