import { grownArray } from "../canonical/grown-array.ts";

export interface ShardedLruOptions {
  /** Total budget over all shards; each shard gets an equal part. */
  readonly maxBytes: number;
  readonly ttlMs: number;
  /** Power of two keeps the shard pick a mask. */
  readonly shards?: number;
  readonly now?: () => number;
}

export interface ShardedLru<V> {
  get(key: string): V | undefined;
  /** `bytes` is the caller's measure of the value; an entry larger than a shard's budget is not kept. */
  set(key: string, value: V, bytes: number, expiresAt?: number): void;
  delete(key: string): void;
  /** Bytes held now (over all shards). */
  readonly bytes: number;
  readonly size: number;
  clear(): void;
}

interface Shard {
  /** Each entry's slot, in recency order (least recently used first). */
  readonly map: Map<string, number>;
  bytes: number;
}

/** Slots a new LRU has room for; the room doubles as entries come. */
const FIRST_CAPACITY = 256;

/** Cheap, stable spread of keys over shards: the last characters of a key are its hash in practice. */
function shardIndex(key: string, mask: number): number {
  let h = key.length;
  for (let i = Math.max(0, key.length - 8); i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) & mask;
}

/**
 * A least-recently-used map split into shards (each a Map in recency order), bounded by bytes and
 * with a time to live per entry. Sharding keeps each eviction scan short and lets the budget be
 * shared evenly.
 */
export function createShardedLru<V>(options: ShardedLruOptions): ShardedLru<V> {
  const requested = Math.max(1, options.shards ?? 16);
  const count = 2 ** Math.ceil(Math.log2(requested));
  const mask = count - 1;
  const shardBudget = Math.floor(options.maxBytes / count);
  const now = options.now ?? Date.now;
  const shards: Shard[] = Array.from({ length: count }, () => ({ map: new Map(), bytes: 0 }));
  let totalBytes = 0;
  // An entry is a slot: its value, its measure and its expiry side by side in arrays, not an object
  // of its own for each (a full 64 MB response cache held some 70,000, each one more for every
  // full collection to mark).
  let values: (V | undefined)[] = [];
  let sizes = new Float64Array(FIRST_CAPACITY);
  let expiries = new Float64Array(FIRST_CAPACITY);
  const free: number[] = [];

  function newSlot(): number {
    const reused = free.pop();
    if (reused !== undefined) return reused;
    const slot = values.length;
    if (slot === sizes.length) {
      sizes = grownArray(sizes, slot * 2);
      expiries = grownArray(expiries, slot * 2);
    }
    values.push(undefined);
    return slot;
  }

  function remove(shard: Shard, key: string, slot: number): void {
    shard.map.delete(key);
    shard.bytes -= sizes[slot]!;
    totalBytes -= sizes[slot]!;
    values[slot] = undefined;
    free.push(slot);
  }

  return {
    get(key) {
      const shard = shards[shardIndex(key, mask)]!;
      const slot = shard.map.get(key);
      if (slot === undefined) return undefined;
      if (expiries[slot]! <= now()) {
        remove(shard, key, slot);
        return undefined;
      }
      // Re-insert to mark it most recently used.
      shard.map.delete(key);
      shard.map.set(key, slot);
      return values[slot];
    },
    set(key, value, bytes, expiresAt) {
      const shard = shards[shardIndex(key, mask)]!;
      const existing = shard.map.get(key);
      if (existing !== undefined) remove(shard, key, existing);
      if (bytes > shardBudget) return;
      const at = now();
      const expiry = expiresAt ?? at + options.ttlMs;
      if (expiry <= at) return;
      if (shard.bytes + bytes > shardBudget) {
        // An eighth of the shard freed at once: a pass walks the map from its oldest entries, over
        // what earlier passes deleted, so passes must be rare. One entry a pass made a full cache
        // cost more with each set (200-byte entries in 64 MB: up to 30 µs a set).
        const target = shardBudget - Math.floor(shardBudget / 8);
        for (const [oldKey, oldSlot] of shard.map) {
          if (shard.bytes + bytes <= target) break;
          remove(shard, oldKey, oldSlot);
        }
      }
      const slot = newSlot();
      values[slot] = value;
      sizes[slot] = bytes;
      expiries[slot] = expiry;
      shard.map.set(key, slot);
      shard.bytes += bytes;
      totalBytes += bytes;
    },
    delete(key) {
      const shard = shards[shardIndex(key, mask)]!;
      const slot = shard.map.get(key);
      if (slot !== undefined) remove(shard, key, slot);
    },
    get bytes() {
      return totalBytes;
    },
    get size() {
      return shards.reduce((n, s) => n + s.map.size, 0);
    },
    clear() {
      for (const shard of shards) {
        shard.map.clear();
        shard.bytes = 0;
      }
      totalBytes = 0;
      values = [];
      free.length = 0;
    },
  };
}
