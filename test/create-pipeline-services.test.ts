import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { loadConfig } from "../src/config/load-config.ts";
import type { Config } from "../src/config/schema.ts";
import { createPipelineServices, type PipelineServices } from "../src/create-pipeline-services.ts";
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
});
