import { describe, expect, test } from "bun:test";
import { createByteLru, type ByteLru } from "../../src/cache/create-byte-lru.ts";
import { settledHeapSize } from "../helpers/settled-heap-size.ts";

const put = (lru: ByteLru, key: string, bytes: Uint8Array, expiresAt?: number): void => lru.set(key, bytes.byteLength, (target, offset) => target.set(bytes, offset), expiresAt);
const text = (bytes: Buffer | undefined): string | undefined => bytes?.toString();
/** `size` bytes told apart by `seed`: its low byte throughout, and the seed itself at both ends. */
function filled(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size, (seed * 31) & 0xff);
  if (size >= 8) {
    bytes.writeUInt32BE(seed, 0);
    bytes.writeUInt32BE(seed, size - 4);
  }
  return bytes;
}

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

  // Every way the log can wrap, and the rings grow: sizes from 1 byte to most of a ring, reads,
  // replacements and deletes in a random order, checked against what was last written under each key.
  test.each([
    ["rings of 4 KiB", 4 * 4096, 200, 3000, 50_000],
    ["rings that grow from 64 KiB to 512 KiB", 4 * 512 * 1024, 12_000, 200_000, 20_000],
  ])("never gives back bytes other than the ones last written under the key: %s", (_name, maxBytes, small, large, steps) => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const lru = createByteLru({ maxBytes, ttlMs: 1000, shards: 4 });
    const last = new Map<string, Buffer>();
    let hits = 0;
    for (let step = 0; step < steps; step++) {
      const key = `key${random(300)}`;
      const action = random(10);
      if (action < 5) {
        const bytes = filled(1 + (random(4) === 0 ? random(large) : random(small)), step);
        put(lru, key, bytes);
        last.set(key, bytes);
        // What was just written is there, if a ring can hold it.
        if (bytes.byteLength < maxBytes / 4) expect(lru.get(key)).toEqual(bytes);
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
      expect(lru.bytes).toBeLessThanOrEqual(maxBytes);
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

  test("a ring that grows takes every entry it holds along, in order, and each reads back whole", () => {
    // One ring of 1 MiB, grown from 64 KiB through four doublings by 300 entries of 3,000 bytes,
    // every tenth read (and so moved) on the way.
    const lru = createByteLru({ maxBytes: 1024 * 1024, ttlMs: 1000, shards: 1 });
    for (let i = 0; i < 300; i++) {
      put(lru, `k${i}`, filled(3000, i));
      if (i % 10 === 9) expect(lru.get(`k${i - 5}`)).toEqual(filled(3000, i - 5));
    }
    expect(lru.size).toBe(300);
    for (let i = 0; i < 300; i++) expect(lru.get(`k${i}`)).toEqual(filled(3000, i));
    // Full: the least recently used go, the rest stay whole.
    for (let i = 300; i < 400; i++) put(lru, `k${i}`, filled(3000, i));
    expect(lru.get("k0")).toBeUndefined();
    for (let i = 200; i < 400; i++) expect(lru.get(`k${i}`)).toEqual(filled(3000, i));
  });

  test("one answer stored again and again keeps its ring at its first 64 KiB", async () => {
    const before = await settledHeapSize();
    const lru = createByteLru({ maxBytes: 64 * 1024 * 1024, ttlMs: 1000, shards: 16 });
    const answer = filled(2000, 1);
    for (let i = 0; i < 20_000; i++) put(lru, "acct_a:the-same-request", answer);
    const held = (await settledHeapSize()) - before;
    expect(lru.get("acct_a:the-same-request")).toEqual(answer);
    // A ring of the shard's whole budget would be 4 MiB.
    expect(held).toBeLessThan(1024 * 1024);
  });
});
