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

/** A raw answer held in L1 as it came, until its first hit decodes it. */
export interface RawEntry {
  readonly raw: RawAnswer;
  readonly headers: CachedAnswer["headers"];
  readonly storedAt: number;
}

/** What L1 holds: a decoded answer as JSON text, or a raw one not asked for yet. */
export type StoredEntry = string | RawEntry;

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

/** In L2, a raw answer is this mark, its JSON header line, then its bytes as they were sent. */
const RAW_MARK = "\u0001";
/**
 * What an L1 entry costs beyond its bytes and its key's characters: the objects around them (the
 * entry, its headers, the LRU's record and map slot, the key; a raw answer's array, view and
 * buffer besides). Measured with the collector's heap statistics over L1s filled with the
 * simulated upstream's answers: about 170 bytes a decoded answer's text and 565-610 a raw
 * answer's bytes took beyond what they count. At 256 for raw answers and nothing for texts, a
 * full 64 MB L1 held 78 MB of heap under the bench's soak.
 */
const TEXT_OVERHEAD_BYTES = 176;
const RAW_OVERHEAD_BYTES = 608;

type RawHeader = Omit<RawEntry, "raw"> & Pick<RawAnswer, "kind" | "api" | "usage">;

/**
 * Escaping a whole stream into a JSON string would cost what keeping it raw saves: the bytes follow
 * the header as they are, and go to Redis as bytes (never decoded into a string and encoded back).
 */
function serialiseRaw(entry: RawEntry): Buffer {
  const { raw, headers, storedAt } = entry;
  const header: RawHeader = { kind: raw.kind, api: raw.api, ...(raw.usage ? { usage: raw.usage } : {}), headers, storedAt };
  return Buffer.concat([Buffer.from(`${RAW_MARK}${JSON.stringify(header)}\n`), ...raw.bytes]);
}

function parseRaw(text: string): RawEntry | null {
  const newline = text.indexOf("\n");
  const header = newline > 0 ? parseJson<RawHeader>(text.slice(RAW_MARK.length, newline)) : null;
  if (!header) return null;
  const { kind, api, usage, headers, storedAt } = header;
  return { raw: { kind, api, bytes: [Buffer.from(text.slice(newline + 1))], ...(usage ? { usage } : {}) }, headers, storedAt };
}

const isRaw = (answer: CanonicalResponse | RawAnswer): answer is RawAnswer => "kind" in answer && "bytes" in answer;
const rawBytes = (raw: RawAnswer): number => raw.bytes.reduce((sum, chunk) => sum + chunk.byteLength, RAW_OVERHEAD_BYTES);

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
  function read(key: string, entry: StoredEntry): CachedAnswer | null {
    if (typeof entry === "string") return parseJson<CachedAnswer>(entry);
    const response = decodeRaw(entry.raw);
    if (!response || !STORABLE.has(response.stopReason.unified)) {
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
    const raw = text.startsWith(RAW_MARK) ? parseRaw(text) : null;
    const answer = raw ? read(key, raw) : parseJson<CachedAnswer>(text);
    if (!answer || answer.storedAt + ttlMs <= now()) {
      lru.delete(key);
      return null;
    }
    // A raw text was decoded into L1 by `read`; a decoded one goes there as it came.
    if (!raw) keep(key, text, answer.storedAt);
    return answer;
  }

  function toL2(key: string, value: string | Buffer): void {
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
        const entry: RawEntry = { raw: answer, headers, storedAt };
        lru.set(key, entry, rawBytes(answer) + key.length, storedAt + ttlMs);
        if (redis?.link.up) toL2(key, serialiseRaw(entry));
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
