import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MEMORY_DATA_DIR, openDatabase } from "../../src/db/client.ts";
import { migrateDatabase } from "../../src/db/migrate.ts";
import { createReadinessCheck } from "../../src/ops/check-readiness.ts";
import { createMetrics } from "../../src/ops/create-metrics.ts";
import { opsRoutes } from "../../src/ops/ops-routes.ts";
import { createRedisLink, type RedisStateChange } from "../../src/redis/create-redis-link.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

let gw: TestGateway;
let spare: TestDatabase;
beforeAll(async () => {
  gw = await startTestGateway();
  spare = await openTestDatabase();
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await gw.stop();
  await spare.close();
}, DATABASE_HOOK_TIMEOUT_MS);

describe("GET /healthz and /readyz", () => {
  test("/healthz: 200 without a key", async () => {
    const res = await fetch(`${gw.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  test("/readyz: 200 when the database is reachable and migrated", async () => {
    const res = await fetch(`${gw.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready" });
  });

  test("the wrong method answers 405", async () => {
    const res = await fetch(`${gw.url}/readyz`, { method: "POST" });
    expect(res.status).toBe(405);
    await res.text();
  });
});

describe("/readyz when not ready", () => {
  test.each([
    ["draining", "shutting down"],
    ["database", "connection refused"],
  ])("503 naming %p", async (failing, reason) => {
    const routes = opsRoutes({
      readiness: { check: async () => ({ ready: false, failing, reason }) },
      metrics: createMetrics(() => gw.gateway.config),
      metricsToken: undefined,
      adminGate: undefined,
      openApi: { info: { title: "t", version: "0", description: "" }, paths: {} },
      reload: async () => ({ tiers: [], models: [] }),
    });
    const res = await routes.handle(new Request("http://gateway/readyz"));
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "unavailable", failing, reason });
  });
});

test("/readyz degraded: 200 naming the parts on their fallback", async () => {
  const routes = opsRoutes({
    readiness: { check: async () => ({ ready: true, degraded: ["redis"] }) },
    metrics: createMetrics(() => gw.gateway.config),
    metricsToken: undefined,
    adminGate: undefined,
    openApi: { info: { title: "t", version: "0", description: "" }, paths: {} },
    reload: async () => ({ tiers: [], models: [] }),
  });
  const res = await routes.handle(new Request("http://gateway/readyz"));
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: "degraded", degraded: ["redis"] });
});

describe("readiness check", () => {
  test("draining → not ready, named", async () => {
    const readiness = createReadinessCheck({ database: spare.database, redis: undefined, draining: () => true });
    expect(await readiness.check()).toMatchObject({ ready: false, failing: "draining" });
  });

  test("a database without the migrations → migrations", async () => {
    const bare = await openDatabase({ dataDir: MEMORY_DATA_DIR });
    try {
      const readiness = createReadinessCheck({ database: bare, redis: undefined, draining: () => false });
      expect(await readiness.check()).toMatchObject({ ready: false, failing: "migrations" });
      await migrateDatabase(bare);
      expect(await readiness.check()).toEqual({ ready: true });
    } finally {
      await bare.close();
    }
  }, DATABASE_HOOK_TIMEOUT_MS);

  test("an unreachable database → database", async () => {
    const closed = await openDatabase({ dataDir: MEMORY_DATA_DIR });
    await closed.close();
    const readiness = createReadinessCheck({ database: closed, redis: undefined, draining: () => false, timeoutMs: 1000 });
    expect(await readiness.check()).toMatchObject({ ready: false, failing: "database" });
  }, DATABASE_HOOK_TIMEOUT_MS);

  test("Redis configured but unreachable → still ready, degraded: redis (the gateway serves on in-process state)", async () => {
    const changes: RedisStateChange[] = [];
    const link = createRedisLink({ url: "redis://:secretpass@127.0.0.1:1", backoffMs: 60_000, onChange: (c) => void changes.push(c) });
    const readiness = createReadinessCheck({ database: spare.database, redis: link, draining: () => false, timeoutMs: 1000 });
    try {
      const result = await readiness.check();
      expect(result).toEqual({ ready: true, degraded: ["redis"] });
      expect(JSON.stringify(changes)).not.toContain("secretpass");
    } finally {
      link.close();
    }
  });

  test("Redis configured and reachable → ready", async () => {
    const link = createRedisLink({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" });
    const readiness = createReadinessCheck({ database: spare.database, redis: link, draining: () => false });
    try {
      expect(await readiness.check()).toEqual({ ready: true });
    } finally {
      link.close();
    }
  });
});
