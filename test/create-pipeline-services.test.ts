import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { lte } from "drizzle-orm";
import { loadConfig } from "../src/config/load-config.ts";
import type { Config } from "../src/config/schema.ts";
import { createPipelineServices, type PipelineServices } from "../src/create-pipeline-services.ts";
import { routingDecisions } from "../src/db/schema/decision-cache.ts";
import type { ConversationPin } from "../src/routing/pin-store.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "./helpers/test-database.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PREFIX = `rltest:${process.pid}:${crypto.randomUUID().slice(0, 8)}:`;
const pin: ConversationPin = { model: "sim-normal", taskClass: "coding", baseEffort: "medium", escalation: { steps: 0, seen: "" } };

let t: TestDatabase;
let services: PipelineServices;
let config: Config;
const admin = new RedisClient(REDIS_URL);

beforeAll(async () => {
  t = await openTestDatabase();
  const base = loadConfig({});
  config = { ...base, redisUrl: REDIS_URL, redis: { ...base.redis, keyPrefix: PREFIX } };
  services = createPipelineServices({ config, database: t.database });
}, DATABASE_HOOK_TIMEOUT_MS);

afterAll(async () => {
  const keys = await admin.keys(`${PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.close();
  await services?.close();
  await t?.close();
}, DATABASE_HOOK_TIMEOUT_MS);

describe("the composition root's pipeline services", () => {
  test("pins live in Redis under the configured key prefix, one store for every routing", async () => {
    const routing = services.routingFor(config);
    expect(routing.pins).toBe(services.pins);
    await routing.pins.set("conversation-1", pin, 60_000);
    expect(await admin.get(`${PREFIX}pin:conversation-1`)).toBe(JSON.stringify(pin));
    expect(await admin.get("routelane:pin:conversation-1")).toBeNull();
    // A reloaded config's routing keeps the same pins.
    const reloaded = services.routingFor({ ...config });
    expect(reloaded).not.toBe(routing);
    expect(await reloaded.pins.get("conversation-1")).toEqual(pin);
  });

  /** Waits until no decision row has expired (the cleanup runs every 10 ms); the rows still expired then. */
  async function expiredLeft(): Promise<number> {
    const { db } = t.database;
    const deadline = Date.now() + 5_000;
    let left = 1;
    while (left > 0 && Date.now() < deadline) {
      await Bun.sleep(10);
      left = (await db.select().from(routingDecisions).where(lte(routingDecisions.expiresAt, new Date()))).length;
    }
    return left;
  }

  const plantExpired = (key: string) =>
    t.database.db.insert(routingDecisions).values({ key, taskClass: "coding", model: "sim-normal", effort: "medium", rule: null, expiresAt: new Date(Date.now() - 60_000) });

  const withDecisions = (base: Config, kind: "rules" | "llm", cleanupIntervalMs: number): Config => ({
    ...base,
    routing: { ...base.routing, classifier: { kind, llmDeadlineMs: 400 }, decisionCache: { ...base.routing.decisionCache, cleanupIntervalMs } },
  });

  test("a gateway on the rules deletes the expired decisions an earlier run on the llm classifier left", async () => {
    await plantExpired("left-by-an-llm-run");
    const rules = withDecisions(config, "rules", 10);
    const onRules = createPipelineServices({ config: rules, database: t.database });
    try {
      onRules.routingFor(rules);
      expect(await expiredLeft()).toBe(0);
    } finally {
      await onRules.close();
    }
  });

  test("a reload's cleanup interval takes over from the one the gateway started with", async () => {
    const started = withDecisions(config, "llm", 600_000);
    const reloaded = createPipelineServices({ config: started, database: t.database });
    try {
      reloaded.routingFor(started);
      await plantExpired("expired-before-the-reload");
      reloaded.routingFor(withDecisions(config, "llm", 10));
      expect(await expiredLeft()).toBe(0);
    } finally {
      await reloaded.close();
    }
  });
});
