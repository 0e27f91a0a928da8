import { RedisClient } from "bun";

/**
 * Every Redis key of one bench run starts with this (the bench's own pid), so a run on a shared
 * Redis touches nobody else's keys, and its keys can all be deleted when it ends.
 */
export const BENCH_REDIS_PREFIX = `routelane-bench-${process.pid}-`;

/** Deletes the run's keys (limits, pins, cached answers), which would otherwise stay until their TTLs. */
export async function deleteBenchRedisKeys(url: string): Promise<number> {
  const client = new RedisClient(url);
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = (await client.send("SCAN", [cursor, "MATCH", `${BENCH_REDIS_PREFIX}*`, "COUNT", "1000"])) as [string, string[]];
      cursor = next;
      if (keys.length > 0) deleted += Number(await client.send("DEL", keys));
    } while (cursor !== "0");
  } finally {
    client.close();
  }
  return deleted;
}
