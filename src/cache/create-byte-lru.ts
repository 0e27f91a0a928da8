import { grownArray } from "../canonical/grown-array.ts";

export interface ByteLruOptions {
  /** The bytes the entries may take, over all shards; each shard's ring gets an equal part. */
  readonly maxBytes: number;
  readonly ttlMs: number;
  /** Rings; an entry larger than one ring (`maxBytes / shards`) is not kept. Power of two keeps the pick a mask. */
  readonly shards?: number;
  readonly now?: () => number;
}

/** Writes an entry's `size` bytes into `target` from `offset` (a view of a ring, not to be kept). */
export type WriteBytes = (target: Buffer, offset: number) => void;

export interface ByteLru {
  /** A copy of the entry's bytes, made the most recently used; undefined when missing or expired. */
  get(key: string): Buffer | undefined;
  /** Stores the `size` bytes `write` writes (until `expiresAt`, else the TTL from now); an entry larger than a ring is not kept. */
  set(key: string, size: number, write: WriteBytes, expiresAt?: number): void;
  delete(key: string): void;
  /** Bytes the entries take now (over all shards). */
  readonly bytes: number;
  readonly size: number;
  clear(): void;
}

/** Slots a new LRU has room for; the room doubles as entries come. */
const FIRST_CAPACITY = 256;
/** A ring's first size; it doubles (up to its share of the budget) when its live entries fill it. */
const FIRST_RING_BYTES = 64 * 1024;

/**
 * One shard: a ring of bytes written as a log. An entry is appended at `head`; room is made by
 * dropping the oldest records at the log's front, and a record whose entry was replaced, read (and
 * so appended again) or deleted is dropped there as well, its bytes taken back only then. The ring
 * grows with what it holds, not with what is written: one answer stored again and again (the same
 * request, over and over) goes round the first 64 KiB.
 */
interface Ring {
  readonly map: Map<string, number>;
  /** Allocated at the first entry. */
  buffer: Buffer | undefined;
  /** The buffer's size: doubled, its live entries copied over in order, before one of them would be dropped. */
  capacity: number;
  head: number;
  /** Log records in the order written (an entry's slot, and where its bytes started), from `first` on. */
  slots: number[];
  starts: number[];
  first: number;
  bytes: number;
}

/** Cheap, stable spread of keys over shards: the last characters of a key are its hash in practice. */
function shardIndex(key: string, mask: number): number {
  let h = key.length;
  for (let i = Math.max(0, key.length - 8); i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) & mask;
}

/**
 * A least-recently-used store of byte strings, bounded by bytes, with a time to live per entry.
 * The bytes live in rings, not in an array each: under new conversations nearly every answer is
 * stored and most are dropped unread, and with an array (or a string) each, every drop was memory
 * for the collector to find and the allocator to reuse, which kept the process's resident memory
 * at about 2.7 times the budget. A ring holds its share of the budget and no more. A read copies
 * the entry out and writes it again at the head, so what is read stays, as in a list in recency
 * order.
 */
export function createByteLru(options: ByteLruOptions): ByteLru {
  const requested = Math.max(1, options.shards ?? 16);
  const count = 2 ** Math.ceil(Math.log2(requested));
  const mask = count - 1;
  const ringBytes = Math.floor(options.maxBytes / count);
  const now = options.now ?? Date.now;
  const rings: Ring[] = Array.from({ length: count }, () => ({ map: new Map(), buffer: undefined, capacity: 0, head: 0, slots: [], starts: [], first: 0, bytes: 0 }));
  // An entry is a slot: its key (to leave the map when its record is dropped), where its bytes
  // start, how many, and until when.
  let keys: (string | undefined)[] = [];
  let starts = new Float64Array(FIRST_CAPACITY);
  let sizes = new Float64Array(FIRST_CAPACITY);
  let expiries = new Float64Array(FIRST_CAPACITY);
  const free: number[] = [];

  function newSlot(): number {
    const reused = free.pop();
    if (reused !== undefined) return reused;
    const slot = keys.length;
    if (slot === sizes.length) [starts, sizes, expiries] = [grownArray(starts, slot * 2), grownArray(sizes, slot * 2), grownArray(expiries, slot * 2)];
    keys.push(undefined);
    return slot;
  }

  /** The entry leaves the map; its bytes are taken back when its record reaches the log's front. */
  function remove(ring: Ring, key: string, slot: number): void {
    ring.map.delete(key);
    ring.bytes -= sizes[slot]!;
    keys[slot] = undefined;
    free.push(slot);
  }

  /** Whether the ring's `i`-th record is still its entry's (not replaced, read again or deleted since). */
  function isLive(ring: Ring, i: number): boolean {
    const slot = ring.slots[i]!;
    const key = keys[slot];
    return key !== undefined && starts[slot] === ring.starts[i] && ring.map.get(key) === slot;
  }

  /** Drops the record at the log's front, and its entry if the record is still the entry's. */
  function dropFront(ring: Ring): void {
    if (isLive(ring, ring.first)) {
      const slot = ring.slots[ring.first]!;
      remove(ring, keys[slot]!, slot);
    }
    ring.first++;
    if (ring.first === ring.slots.length) {
      ring.slots.length = 0;
      ring.starts.length = 0;
      ring.first = 0;
      ring.head = 0;
    } else if (ring.first > 1024 && ring.first * 2 > ring.slots.length) {
      ring.slots = ring.slots.slice(ring.first);
      ring.starts = ring.starts.slice(ring.first);
      ring.first = 0;
    }
  }

  /**
   * A buffer twice the live entries and `size` at least, the live ones copied to its start in log
   * order: the next copy comes only after half a buffer more is written, so a byte written is copied
   * once at most, on average.
   */
  function grow(ring: Ring, size: number): void {
    let capacity = Math.max(ring.capacity, FIRST_RING_BYTES);
    while (capacity < 2 * (ring.bytes + size) && capacity < ringBytes) capacity *= 2;
    capacity = Math.min(capacity, ringBytes);
    const next = Buffer.alloc(capacity);
    const recordSlots: number[] = [];
    const recordStarts: number[] = [];
    let head = 0;
    for (let i = ring.first; i < ring.slots.length; i++) {
      if (!isLive(ring, i)) continue;
      const slot = ring.slots[i]!;
      const from = starts[slot]!;
      next.set(ring.buffer!.subarray(from, from + sizes[slot]!), head);
      starts[slot] = head;
      recordSlots.push(slot);
      recordStarts.push(head);
      head += sizes[slot]!;
    }
    ring.buffer = next;
    ring.capacity = capacity;
    ring.head = head;
    ring.slots = recordSlots;
    ring.starts = recordStarts;
    ring.first = 0;
  }

  /** Where `size` bytes go: at the head, or at the ring's start when they do not fit before its end. */
  function place(ring: Ring, size: number): number {
    if (ring.capacity <= size) grow(ring, size);
    for (;;) {
      if (ring.first === ring.slots.length) return 0;
      const tail = ring.starts[ring.first]!;
      if (ring.head > tail) {
        // [tail, head) in use: after the head to the end, or else from 0 up to the tail.
        if (ring.capacity - ring.head >= size) return ring.head;
        if (tail > size) return 0;
      } else if (tail - ring.head > size) {
        // Wrapped: [tail, end) and [0, head) in use; strictly less, so that head never meets tail.
        return ring.head;
      }
      // Room is made from dead records first; a live one goes only once the ring is as large as it may be.
      if (ring.capacity < ringBytes && isLive(ring, ring.first)) grow(ring, size);
      else dropFront(ring);
    }
  }

  function store(ring: Ring, key: string, size: number, write: WriteBytes, expiry: number): void {
    const start = place(ring, size);
    write(ring.buffer!, start);
    const slot = newSlot();
    keys[slot] = key;
    starts[slot] = start;
    sizes[slot] = size;
    expiries[slot] = expiry;
    ring.slots.push(slot);
    ring.starts.push(start);
    ring.head = start + size;
    ring.map.set(key, slot);
    ring.bytes += size;
  }

  return {
    get(key) {
      const ring = rings[shardIndex(key, mask)]!;
      const slot = ring.map.get(key);
      if (slot === undefined) return undefined;
      const expiry = expiries[slot]!;
      if (expiry <= now()) {
        remove(ring, key, slot);
        return undefined;
      }
      const start = starts[slot]!;
      const bytes = ring.buffer!.subarray(start, start + sizes[slot]!);
      const copy = Buffer.from(bytes);
      // Written again at the head, so the entry outlives the ones not read since.
      remove(ring, key, slot);
      store(ring, key, copy.byteLength, (target, offset) => target.set(copy, offset), expiry);
      return copy;
    },
    set(key, size, write, expiresAt) {
      const ring = rings[shardIndex(key, mask)]!;
      const existing = ring.map.get(key);
      if (existing !== undefined) remove(ring, key, existing);
      if (size <= 0 || size >= ringBytes) return;
      const at = now();
      const expiry = expiresAt ?? at + options.ttlMs;
      if (expiry <= at) return;
      store(ring, key, size, write, expiry);
    },
    delete(key) {
      const ring = rings[shardIndex(key, mask)]!;
      const slot = ring.map.get(key);
      if (slot !== undefined) remove(ring, key, slot);
    },
    get bytes() {
      return rings.reduce((n, ring) => n + ring.bytes, 0);
    },
    get size() {
      return rings.reduce((n, ring) => n + ring.map.size, 0);
    },
    clear() {
      for (const ring of rings) {
        ring.map.clear();
        ring.buffer = undefined;
        ring.capacity = 0;
        ring.head = 0;
        ring.slots = [];
        ring.starts = [];
        ring.first = 0;
        ring.bytes = 0;
      }
      keys = [];
      free.length = 0;
    },
  };
}
