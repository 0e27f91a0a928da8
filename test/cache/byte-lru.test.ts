import { describe, expect, test } from "bun:test";
import { createByteLru, type ByteLru } from "../../src/cache/create-byte-lru.ts";

const put = (lru: ByteLru, key: string, bytes: Uint8Array, expiresAt?: number): void => lru.set(key, bytes.byteLength, (target, offset) => target.set(bytes, offset), expiresAt);
const text = (bytes: Uint8Array | undefined): string | undefined => (bytes === undefined ? undefined : Buffer.from(bytes).toString());
const filled = (size: number, seed: number): Uint8Array => Uint8Array.from({ length: size }, (_, i) => (seed * 31 + i) & 0xff);

describe("byte LRU", () => {
  test("gives back a copy of what was written, until its time to live ends", () => {
    let now = 0;
    const lru = createByteLru({ maxBytes: 1024, ttlMs: 100, shards: 1, now: () => now });
    put(lru, "a", Buffer.from("alpha"));
    lru.set("b", 4, (target, offset) => void target.write("beta", offset), 50);
    const read = lru.get("a")!;
    expect(text(read)).toBe("alpha");
    read[0] = 0;
    expect([text(lru.get("a")), text(lru.get("b")), lru.get("c")]).toEqual(["alpha", "beta", undefined]);
    expect([lru.size, lru.bytes]).toEqual([2, 9]);
    now = 50;
    expect([text(lru.get("a")), lru.get("b")]).toEqual(["alpha", undefined]);
    now = 100;
    expect(lru.get("a")).toBeUndefined();
    expect([lru.size, lru.bytes]).toEqual([0, 0]);
  });

  test("the least recently used go first: a read entry outlives the ones not read since", () => {
    const lru = createByteLru({ maxBytes: 1000, ttlMs: 1000, shards: 1 });
    for (let i = 0; i < 9; i++) put(lru, `k${i}`, filled(100, i));
    expect(lru.get("k0")).toEqual(filled(100, 0));
    // Two more: room is made from the oldest records, k0's old place among them.
    put(lru, "k9", filled(100, 9));
    put(lru, "k10", filled(100, 10));
    expect(lru.get("k0")).toEqual(filled(100, 0));
    expect(lru.get("k1")).toBeUndefined();
    expect(lru.get("k10")).toEqual(filled(100, 10));
    expect(lru.bytes).toBeLessThanOrEqual(1000);
  });

  test("a key set again, deleted or too big for a ring leaves nothing of its old bytes; clear empties it", () => {
    const lru = createByteLru({ maxBytes: 256, ttlMs: 1000, shards: 2 });
    put(lru, "a", Buffer.from("first"));
    put(lru, "a", Buffer.from("second"));
    expect([text(lru.get("a")), lru.size, lru.bytes]).toEqual(["second", 1, 6]);
    put(lru, "a", filled(128, 1));
    expect([lru.get("a"), lru.size, lru.bytes]).toEqual([undefined, 0, 0]);
    put(lru, "b", Buffer.from("bee"));
    lru.delete("b");
    expect([lru.get("b"), lru.size]).toEqual([undefined, 0]);
    put(lru, "c", Buffer.from("sea"));
    lru.clear();
    expect([lru.get("c"), lru.size, lru.bytes]).toEqual([undefined, 0, 0]);
    put(lru, "c", Buffer.from("again"));
    expect(text(lru.get("c"))).toBe("again");
  });

  // Every way the log can wrap: sizes from 1 byte to most of a ring, reads, replacements and
  // deletes in a random order, checked against what was last written under each key.
  test("never gives back bytes other than the ones last written under the key, however the rings wrap", () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const lru = createByteLru({ maxBytes: 4 * 4096, ttlMs: 1000, shards: 4 });
    const last = new Map<string, Uint8Array>();
    let hits = 0;
    for (let step = 0; step < 50_000; step++) {
      const key = `key${random(300)}`;
      const action = random(10);
      if (action < 5) {
        const bytes = filled(1 + (random(4) === 0 ? random(3000) : random(200)), step);
        put(lru, key, bytes);
        last.set(key, bytes);
        // What was just written is there.
        expect(lru.get(key)).toEqual(bytes);
      } else if (action < 9) {
        const got = lru.get(key);
        if (got !== undefined) {
          hits++;
          expect(got).toEqual(last.get(key)!);
        }
      } else {
        lru.delete(key);
        last.delete(key);
      }
      expect(lru.bytes).toBeLessThanOrEqual(4 * 4096);
      // Now and then every entry still held, not only the one at hand: a write that ran over
      // another's bytes shows there.
      if (step % 97 === 0) {
        for (const [held, bytes] of last) {
          const got = lru.get(held);
          if (got !== undefined) expect(got).toEqual(bytes);
        }
      }
    }
    expect(hits).toBeGreaterThan(1_000);
  });
});
