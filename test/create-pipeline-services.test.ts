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

  test("a reload that turns on the llm classifier also starts the cleanup of expired decisions (a rules start had none to start)", async () => {
    const rules: Config = { ...config, routing: { ...config.routing, classifier: { kind: "rules", llmDeadlineMs: 400 } } };
    const llm: Config = {
      ...rules,
      routing: { ...rules.routing, classifier: { kind: "llm", llmDeadlineMs: 400 }, decisionCache: { ...rules.routing.decisionCache, cleanupIntervalMs: 10 } },
    };
    const reloaded = createPipelineServices({ config: rules, database: t.database });
    try {
      reloaded.routingFor(rules);
      const { db } = t.database;
      await db.insert(routingDecisions).values({ key: "expired-decision", taskClass: "coding", model: "sim-normal", effort: "medium", rule: null, expiresAt: new Date(Date.now() - 60_000) });
      reloaded.routingFor(llm);
      // The cleanup runs every 10 ms: the expired row goes within a few of its rounds.
      const deadline = Date.now() + 5_000;
      let left = 1;
      while (left > 0 && Date.now() < deadline) {
        await Bun.sleep(10);
        left = (await db.select().from(routingDecisions).where(lte(routingDecisions.expiresAt, new Date()))).length;
      }
      expect(left).toBe(0);
    } finally {
      await reloaded.close();
    }
  });
});
