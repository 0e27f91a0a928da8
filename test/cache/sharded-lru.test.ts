import { describe, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { createShardedLru } from "../../src/cache/create-sharded-lru.ts";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe("sharded LRU", () => {
  test("evicts the least recently used entries when the byte budget is exceeded", () => {
    const lru = createShardedLru<string>({ maxBytes: 100, ttlMs: 60_000, shards: 1 });
    lru.set("a", "A", 40);
    lru.set("b", "B", 40);
    expect(lru.get("a")).toBe("A"); // a is now the most recent
    lru.set("c", "C", 40); // over budget: b (least recent) goes
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBe("A");
    expect(lru.get("c")).toBe("C");
    expect(lru.bytes).toBe(80);
    expect(lru.size).toBe(2);
  });

  test("a set over the budget frees an eighth of the shard at once, the least recently used first", () => {
    const lru = createShardedLru<number>({ maxBytes: 800, ttlMs: 60_000, shards: 1 });
    for (let i = 0; i < 8; i++) lru.set(`k${i}`, i, 100);
    expect(lru.bytes).toBe(800);
    lru.get("k0");
    // 900 > 800: the pass goes down to 700 with the new entry, so k1 and k2 go, not only k1.
    lru.set("k8", 8, 100);
    expect(lru.bytes).toBe(700);
    expect([lru.get("k1"), lru.get("k2")]).toEqual([undefined, undefined]);
    expect([lru.get("k0"), lru.get("k3"), lru.get("k8")]).toEqual([0, 3, 8]);
    // Below the budget again, the next set frees nothing.
    lru.set("k9", 9, 100);
    expect(lru.size).toBe(8);
  });

  test("an entry larger than a shard's budget is not kept, and replacing a key frees its old bytes", () => {
    const lru = createShardedLru<string>({ maxBytes: 100, ttlMs: 60_000, shards: 1 });
    lru.set("big", "x", 101);
    expect(lru.get("big")).toBeUndefined();
    lru.set("k", "one", 60);
    lru.set("k", "two", 30);
    expect(lru.get("k")).toBe("two");
    expect(lru.bytes).toBe(30);
    lru.delete("k");
    expect(lru.bytes).toBe(0);
  });

  test("entries expire after the TTL, or at an explicit expiry", () => {
    const c = clock();
    const lru = createShardedLru<number>({ maxBytes: 1000, ttlMs: 600_000, now: c.now });
    lru.set("x", 1, 10);
    lru.set("y", 2, 10, c.now() + 1000);
    c.advance(999);
    expect(lru.get("y")).toBe(2);
    c.advance(1);
    expect(lru.get("y")).toBeUndefined();
    c.advance(600_000 - 1000 - 1);
    expect(lru.get("x")).toBe(1);
    c.advance(1);
    expect(lru.get("x")).toBeUndefined();
    expect(lru.bytes).toBe(0);
  });

  test("the budget is split over shards and never exceeded in total", () => {
    const lru = createShardedLru<string>({ maxBytes: 16 * 1000, ttlMs: 60_000, shards: 16 });
    for (let i = 0; i < 5000; i++) lru.set(`key-${i}-${(i * 2654435761) >>> 0}`, "v", 100);
    expect(lru.bytes).toBeLessThanOrEqual(16 * 1000);
    expect(lru.size).toBeGreaterThan(100);
    lru.clear();
    expect(lru.size).toBe(0);
  });

  test("an entry is no object of its own for the collector to mark, and its slot serves the next", () => {
    const count = 20_000;
    const keys = Array.from({ length: count }, (_, i) => `entry-${i}`);
    // Hashed once before counting: a key made by concatenation is flattened at its first use as a
    // map key, and the pieces that frees would hide what the store adds.
    new Set(keys);
    const lru = createShardedLru<string>({ maxBytes: 1_000_000_000, ttlMs: 60_000 });
    const objects = (): number => {
      Bun.gc(true);
      return heapStats().objectCount;
    };
    const before = objects();
    for (const key of keys) lru.set(key, "the answer", 100);
    // One object an entry (its value, size and expiry) made 20,000 more.
    expect(objects() - before).toBeLessThan(count / 10);
    for (const key of keys.slice(0, 100)) lru.delete(key);
    lru.set("after", "a later answer", 100);
    lru.set(keys[100]!, "replaced", 50);
    expect([lru.get("after"), lru.get(keys[100]!), lru.get(keys[101]!), lru.get(keys[0]!)]).toEqual(["a later answer", "replaced", "the answer", undefined]);
    expect([lru.size, lru.bytes]).toEqual([count - 100 + 1, (count - 100) * 100 + 50]);
  });
});
