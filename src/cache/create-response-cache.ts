import type { CanonicalResponse } from "../canonical/response.ts";
import type { ByteLru, WriteBytes } from "./create-byte-lru.ts";
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

export interface ResponseCacheOptions {
  /**
   * L1: a decoded answer as its JSON text, a raw one (not asked for yet) in the bytes L2 keeps (see
   * writeRaw), the first byte telling which.
   */
  readonly lru: ByteLru;
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
const RAW_MARK_BYTE = 0x01;
const NEWLINE = 0x0a;

type RawHeader = Omit<RawEntry, "raw"> & Pick<RawAnswer, "kind" | "api" | "usage">;

/**
 * A raw entry's size and writer. Escaping a whole stream into a JSON string would cost what keeping
 * it raw saves: the bytes follow the header as they are (never decoded into a string and encoded
 * back), into L1's ring, and as one array to Redis.
 */
function writeRaw(raw: RawAnswer, headers: CachedAnswer["headers"], storedAt: number): { readonly size: number; readonly write: WriteBytes } {
  const header: RawHeader = { kind: raw.kind, api: raw.api, ...(raw.usage ? { usage: raw.usage } : {}), headers, storedAt };
  const head = `${RAW_MARK}${JSON.stringify(header)}\n`;
  const headBytes = Buffer.byteLength(head);
  let size = headBytes;
  for (const chunk of raw.bytes) size += chunk.byteLength;
  const write: WriteBytes = (target, offset) => {
    target.write(head, offset);
    let at = offset + headBytes;
    for (const chunk of raw.bytes) {
      target.set(chunk, at);
      at += chunk.byteLength;
    }
  };
  return { size, write };
}

/** The entry in `writeRaw`'s bytes (its answer a view of them), or null when they are not one. */
function parseRaw(bytes: Buffer): RawEntry | null {
  const newline = bytes.indexOf(NEWLINE);
  const header = newline > 0 ? parseJson<RawHeader>(bytes.toString("utf8", 1, newline)) : null;
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

  const keep = (key: string, text: string, storedAt: number): void =>
    lru.set(key, Buffer.byteLength(text), (target, offset) => void target.write(text, offset), storedAt + ttlMs);

  /**
   * L1's bytes as an answer. A raw one is decoded now, once: L1 then keeps the decoded form, and one
   * that turns out not to be a complete, replayable answer is dropped.
   */
  function read(key: string, stored: Buffer): CachedAnswer | null {
    if (stored[0] !== RAW_MARK_BYTE) return parseJson<CachedAnswer>(stored.toString());
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

  function toL2(key: string, value: string | Uint8Array): void {
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
        const { size, write } = writeRaw(answer, headers, storedAt);
        if (!redis?.link.up) {
          lru.set(key, size, write, storedAt + ttlMs);
          return;
        }
        // Redis sends its copy later: an array of its own, which L1 copies into its ring.
        const bytes = Buffer.allocUnsafeSlow(size);
        write(bytes, 0);
        lru.set(key, size, (target, offset) => target.set(bytes, offset), storedAt + ttlMs);
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
