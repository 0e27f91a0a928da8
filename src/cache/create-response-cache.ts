import type { CanonicalResponse } from "../canonical/response.ts";
import type { ShardedLru } from "./create-sharded-lru.ts";
import type { DecodeRawAnswer, RawAnswer } from "./raw-answer.ts";
import type { RedisLink } from "../redis/create-redis-link.ts";

/** A cached answer: the complete response and the routing headers it was first sent with. */
export interface CachedAnswer {
  readonly response: CanonicalResponse;
  /** `x-router-tier`, `-model`, `-effort`, `-source` of the original answer. */
  readonly headers: Readonly<Record<string, string>>;
  /** When it was stored (ms since epoch). */
  readonly storedAt: number;
}

/** A raw answer with what was sent beside it, as L1 and L2 keep it until its first hit decodes it. */
interface RawEntry {
  readonly raw: RawAnswer;
  readonly headers: CachedAnswer["headers"];
  readonly storedAt: number;
}

/**
 * What L1 holds: a decoded answer as JSON text, or a raw one not asked for yet in the bytes L2 keeps
 * (see serialiseRaw). One array, not the answer's own objects: a raw answer came as an entry, its
 * headers, a list of chunks and a view and buffer for each, and under new conversations (every
 * answer stored, few asked for again) a full 64 MB L1 was most of the heap's objects.
 */
export type StoredEntry = string | Uint8Array;

export interface ResponseCacheOptions {
  /** L1, sized in bytes. */
  readonly lru: ShardedLru<StoredEntry>;
  readonly ttlMs: number;
  /** Reads a raw answer at its first hit. */
  readonly decodeRaw: DecodeRawAnswer;
  /** L2 shared by instances; absent → in-process only. */
  readonly redis?: { readonly link: RedisLink; readonly keyPrefix: string } | undefined;
  readonly now?: () => number;
}

export interface ResponseCache {
  /** A stored answer, or null. Synchronous on an L1 hit or when there is no L2. */
  get(key: string): CachedAnswer | null | Promise<CachedAnswer | null>;
  /**
   * Stores a complete successful answer; anything else is ignored (a raw answer is judged at its
   * first hit, and dropped then if it is not). Never throws, never waits.
   */
  put(key: string, answer: CanonicalResponse | RawAnswer, headers: Readonly<Record<string, string>>): void;
  /** True while the Redis link is down: L2 is skipped without a call until its probe finds Redis again. */
  readonly l2Degraded: boolean;
}

/** Stop reasons of answers that are whole and final; a paused or filtered turn is not replayed. */
const STORABLE = new Set(["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal"]);

/** In L1 and L2, a raw answer is this mark, its JSON header line, then its bytes as they were sent. */
const RAW_MARK = "\u0001";
const NEWLINE = 0x0a;
/**
 * What an L1 entry costs beyond its bytes and its key's characters: the objects around them (the
 * key and its map slot, the LRU's slot; a raw answer's array). Measured with the collector's heap
 * statistics over L1s filled with the simulated upstream's answers
 * (test/cache/response-cache-memory.test.ts).
 */
const TEXT_OVERHEAD_BYTES = 176;
const RAW_OVERHEAD_BYTES = 384;

type RawHeader = Omit<RawEntry, "raw"> & Pick<RawAnswer, "kind" | "api" | "usage">;

/**
 * Escaping a whole stream into a JSON string would cost what keeping it raw saves: the bytes follow
 * the header as they are, in one array of their own (never decoded into a string and encoded back),
 * which is also what goes to Redis.
 */
function serialiseRaw(raw: RawAnswer, headers: CachedAnswer["headers"], storedAt: number): Uint8Array {
  const header: RawHeader = { kind: raw.kind, api: raw.api, ...(raw.usage ? { usage: raw.usage } : {}), headers, storedAt };
  const head = Buffer.from(`${RAW_MARK}${JSON.stringify(header)}\n`);
  let length = head.byteLength;
  for (const chunk of raw.bytes) length += chunk.byteLength;
  const out = new Uint8Array(length);
  out.set(head);
  let at = head.byteLength;
  for (const chunk of raw.bytes) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** The entry in `serialiseRaw`'s bytes (its answer a view of them), or null when they are not one. */
function parseRaw(bytes: Uint8Array): RawEntry | null {
  const newline = bytes.indexOf(NEWLINE);
  const header = newline > 0 ? parseJson<RawHeader>(Buffer.from(bytes.buffer, bytes.byteOffset + 1, newline - 1).toString()) : null;
  if (!header) return null;
  const { kind, api, usage, headers, storedAt } = header;
  return { raw: { kind, api, bytes: [bytes.subarray(newline + 1)], ...(usage ? { usage } : {}) }, headers, storedAt };
}

const isRaw = (answer: CanonicalResponse | RawAnswer): answer is RawAnswer => "kind" in answer && "bytes" in answer;

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/**
 * The 10-minute response cache: an in-process sharded LRU in front of an optional Redis L2. A
 * decoded answer is kept as canonical JSON, so a hit can be rendered in any format, as JSON or as
 * a stream; a passed-through one is kept as its bytes until a hit first needs it decoded.
 * Redis failures only cost hits (fail open).
 */
export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const { lru, ttlMs, redis, decodeRaw } = options;
  const now = options.now ?? Date.now;
  const redisKey = (key: string) => `${redis?.keyPrefix ?? ""}rc:{${key.slice(0, key.indexOf(":"))}}:${key}`;

  const keep = (key: string, text: string, storedAt: number): void => lru.set(key, text, Buffer.byteLength(text) + key.length + TEXT_OVERHEAD_BYTES, storedAt + ttlMs);

  /**
   * An entry as an answer. A raw one is decoded now, once: L1 then keeps the decoded form, and one
   * that turns out not to be a complete, replayable answer is dropped.
   */
  function read(key: string, stored: StoredEntry): CachedAnswer | null {
    if (typeof stored === "string") return parseJson<CachedAnswer>(stored);
    const entry = parseRaw(stored);
    const response = entry && decodeRaw(entry.raw);
    if (!entry || !response || !STORABLE.has(response.stopReason.unified)) {
      lru.delete(key);
      return null;
    }
    const answer: CachedAnswer = { response, headers: entry.headers, storedAt: entry.storedAt };
    keep(key, JSON.stringify(answer), answer.storedAt);
    return answer;
  }

  async function fromL2(key: string): Promise<CachedAnswer | null> {
    if (!redis) return null;
    let text: unknown;
    try {
      text = await redis.link.send("GET", [redisKey(key)]);
    } catch {
      return null;
    }
    if (typeof text !== "string") return null;
    const raw = text.startsWith(RAW_MARK);
    const answer = raw ? read(key, Buffer.from(text)) : parseJson<CachedAnswer>(text);
    if (!answer || answer.storedAt + ttlMs <= now()) {
      lru.delete(key);
      return null;
    }
    // A raw text was decoded into L1 by `read`; a decoded one goes there as it came.
    if (!raw) keep(key, text, answer.storedAt);
    return answer;
  }

  function toL2(key: string, value: StoredEntry): void {
    if (!redis?.link.up) return;
    (typeof value === "string" ? redis.link.send("SET", [redisKey(key), value, "PX", String(ttlMs)]) : redis.link.setBytes(redisKey(key), value, ttlMs)).catch(() => {});
  }

  return {
    get(key) {
      const entry = lru.get(key);
      if (entry !== undefined) return read(key, entry);
      return redis?.link.up ? fromL2(key) : null;
    },
    put(key, answer, headers) {
      const storedAt = now();
      if (isRaw(answer)) {
        const bytes = serialiseRaw(answer, headers, storedAt);
        lru.set(key, bytes, bytes.byteLength + key.length + RAW_OVERHEAD_BYTES, storedAt + ttlMs);
        toL2(key, bytes);
        return;
      }
      if (!STORABLE.has(answer.stopReason.unified)) return;
      const text = JSON.stringify({ response: answer, headers, storedAt } satisfies CachedAnswer);
      keep(key, text, storedAt);
      toL2(key, text);
    },
    get l2Degraded() {
      return redis !== undefined && !redis.link.up;
    },
  };
}
