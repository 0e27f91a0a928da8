import { afterAll, beforeAll } from "bun:test";
import { RedisClient } from "bun";
import { createRedisLink, type RedisLink } from "../../src/redis/create-redis-link.ts";
import { deleteRedisKeys } from "./start-test-gateway.ts";

export const TEST_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestRedis {
  /** This file's own key prefix: the CI machine's Redis outlives a run and is shared by files. */
  readonly prefix: string;
  /** Connected before the file's tests run, closed after them. */
  readonly client: RedisClient;
  /** A gateway-style link to the same Redis, for the parts under test. */
  readonly link: RedisLink;
}

/** One Redis connection for a test file, under a key prefix of its own, whose keys are deleted afterwards. */
export function useTestRedis(): TestRedis {
  const prefix = `rltest:${process.pid}:${crypto.randomUUID().slice(0, 8)}:`;
  let client: RedisClient | undefined;
  let link: RedisLink | undefined;
  beforeAll(async () => {
    client = new RedisClient(TEST_REDIS_URL);
    link = createRedisLink({ url: TEST_REDIS_URL });
    await Promise.all([client.connect(), link.check()]);
  }, 30_000);
  afterAll(async () => {
    client?.close();
    link?.close();
    await deleteRedisKeys(TEST_REDIS_URL, prefix);
  }, 30_000);
  return {
    prefix,
    get client() {
      if (!client) throw new Error("useTestRedis: the client is connected in beforeAll");
      return client;
    },
    get link() {
      if (!link) throw new Error("useTestRedis: the link is opened in beforeAll");
      return link;
    },
  };
}
