import { afterAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { BENCH_REDIS_PREFIX, deleteBenchRedisKeys } from "../../src/bench/bench-redis-prefix.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const client = new RedisClient(REDIS_URL);
const other = `routelane-test:${process.pid}:${crypto.randomUUID().slice(0, 8)}:kept`;
afterAll(async () => {
  await client.send("DEL", [other]);
  client.close();
});

test("a bench run's Redis keys are deleted when it ends, and no one else's", async () => {
  const keys = Array.from({ length: 1_500 }, (_, i) => `${BENCH_REDIS_PREFIX}a1b2c3:pin:${i}`);
  for (const key of keys) await client.send("SET", [key, "1", "PX", "60000"]);
  await client.send("SET", [other, "1", "PX", "60000"]);
  expect(await deleteBenchRedisKeys(REDIS_URL)).toBe(keys.length);
  expect(Number(await client.send("EXISTS", keys.slice(0, 100)))).toBe(0);
  expect(Number(await client.send("EXISTS", [other]))).toBe(1);
});
