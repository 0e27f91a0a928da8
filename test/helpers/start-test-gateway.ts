import { RedisClient } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountStore, type AccountStore } from "../../src/accounts/account-store.ts";
import type { Plan } from "../../src/canonical/plans.ts";
import type { Tier } from "../../src/canonical/tier.ts";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";
import { startGateway, type RunningGateway } from "../../src/start-gateway.ts";
import { openTestDatabase, type TestDatabase } from "./test-database.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export interface TestGateway {
  readonly url: string;
  readonly gateway: RunningGateway;
  readonly store: AccountStore;
  readonly testDatabase: TestDatabase;
  /** A new account and its key. */
  account(plan: Plan, defaultTier?: Tier): Promise<{ accountId: string; keyId: string; key: string }>;
  stop(): Promise<void>;
}

export interface TestGatewayOptions {
  /** A config file to start with (written to a temp file and passed as ROUTELANE_CONFIG). */
  readonly fileConfig?: FileConfig;
  readonly env?: Record<string, string>;
  readonly recordSim?: boolean;
  /**
   * Use the Redis at REDIS_URL (limits, pins, response-cache L2) under a key prefix of this
   * gateway's own, deleted on stop. Without REDIS_URL the test should skip itself.
   */
  readonly redis?: boolean;
}

/**
 * A real gateway listening on a free port, on this test file's database (PGlite in memory, or a
 * fresh Postgres database when DATABASE_URL is set), with the in-process simulated upstream.
 */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), "routelane-test-"));
  // Request log lines at info would bury the test output; warnings still show.
  const env: Record<string, string> = { PORT: "0", ROUTELANE_DATA_DIR: dir, ROUTELANE_ADMIN_TOKEN: ADMIN_TOKEN, ROUTELANE_LOG_LEVEL: "warn", ...options.env };
  const redisPrefix = options.redis && process.env.REDIS_URL ? `routelane-test:${crypto.randomUUID().slice(0, 8)}:` : undefined;
  if (redisPrefix) env.REDIS_URL = process.env.REDIS_URL!;
  if (options.fileConfig || redisPrefix) {
    const fileConfig = options.fileConfig ?? DEFAULT_CONFIG;
    const path = join(dir, "config.json");
    writeFileSync(path, JSON.stringify(redisPrefix ? { ...fileConfig, redis: { ...fileConfig.redis, keyPrefix: redisPrefix } } : fileConfig));
    env.ROUTELANE_CONFIG = path;
  }
  const testDatabase = await openTestDatabase();
  const gateway = await startGateway(loadConfig(env), {
    env,
    database: testDatabase.database,
    recordSim: options.recordSim ?? true,
    seedDemo: false,
  });
  const store = createAccountStore(testDatabase.database);
  return {
    url: gateway.url,
    gateway,
    store,
    testDatabase,
    async account(plan, defaultTier) {
      const { account, key } = await store.createAccount({ plan, defaultTier });
      return { accountId: account.id, keyId: key.id, key: key.key };
    },
    async stop() {
      await gateway.stop();
      if (redisPrefix) await deleteRedisKeys(process.env.REDIS_URL!, redisPrefix);
      await testDatabase.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Deletes every key under `prefix` (a test's own), so the shared Redis outlives runs clean. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const client = new RedisClient(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = (await client.send("SCAN", [cursor, "MATCH", `${prefix}*`, "COUNT", "500"])) as [string, string[]];
      cursor = next;
      if (keys.length > 0) await client.send("DEL", keys);
    } while (cursor !== "0");
  } finally {
    client.close();
  }
}

/** The last request the simulated upstream received. */
export function lastUpstreamRequest(gateway: TestGateway): { path: string; headers: Record<string, string>; body: Record<string, unknown> } {
  const received = gateway.gateway.sim?.received.at(-1);
  if (!received) throw new Error("the simulated upstream received nothing");
  return { path: received.path, headers: received.headers, body: received.body as Record<string, unknown> };
}
