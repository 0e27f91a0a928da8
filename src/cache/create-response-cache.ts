import type { RedisClient } from "bun";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { ShardedLru } from "./create-sharded-lru.ts";
import type { DecodeRawAnswer, RawAnswer } from "./raw-answer.ts";

/** A cached answer: the complete response and the routing headers it was first sent with. */
export interface CachedAnswer {
  readonly response: CanonicalResponse;
  /** `x-router-tier`, `-model`, `-effort`, `-source` of the original answer. */
  readonly headers: Readonly<Record<string, string>>;
  /** When it was stored (ms since epoch). */
  readonly storedAt: number;
}

export interface ResponseCacheOptions {
  /** L1: serialised answers (JSON text), sized in bytes. */
  readonly lru: ShardedLru<string>;
  readonly ttlMs: number;
  /** Reads a raw answer at its first hit. */
  readonly decodeRaw: DecodeRawAnswer;
  /** L2 shared by instances; absent → in-process only. */
  readonly redis?: { readonly client: RedisClient; readonly keyPrefix: string; readonly timeoutMs?: number } | undefined;
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
  /** True after an L2 call failed, until one succeeds again. */
  readonly l2Degraded: boolean;
}

/** Stop reasons of answers that are whole and final; a paused or filtered turn is not replayed. */
const STORABLE = new Set(["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal"]);

/** A stored raw answer starts with this mark, then its JSON header line, then the raw text. */
const RAW_MARK = "\u0001";

interface RawHeader {
  readonly kind: RawAnswer["kind"];
  readonly api: RawAnswer["api"];
  readonly usage?: RawAnswer["usage"];
  readonly headers: CachedAnswer["headers"];
  readonly storedAt: number;
}

/** The raw text goes in as it is: escaping a whole stream into a JSON string would cost what decoding it saves. */
function serialiseRaw(raw: RawAnswer, headers: CachedAnswer["headers"], storedAt: number): string {
  const header: RawHeader = { kind: raw.kind, api: raw.api, ...(raw.usage ? { usage: raw.usage } : {}), headers, storedAt };
  return `${RAW_MARK}${JSON.stringify(header)}\n${raw.text}`;
}

const isRaw = (answer: CanonicalResponse | RawAnswer): answer is RawAnswer => "kind" in answer && "text" in answer;

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The 10-minute response cache: an in-process sharded LRU in front of an optional Redis L2. Values
 * are the canonical answer as JSON, so a hit can be rendered in any format, as JSON or as a stream.
 * Redis failures only cost hits (fail open).
 */
export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const { lru, ttlMs, redis, decodeRaw } = options;
  const now = options.now ?? Date.now;
  const timeoutMs = redis?.timeoutMs ?? 100;
  let l2Degraded = false;
  const redisKey = (key: string) => `${redis?.keyPrefix ?? ""}rc:{${key.slice(0, key.indexOf(":"))}}:${key}`;

  /**
   * A stored text as an answer. A raw one is decoded now, once: L1 then keeps the decoded form, and
   * one that turns out not to be a complete, replayable answer is dropped.
   */
  function read(key: string, text: string): CachedAnswer | null {
    if (!text.startsWith(RAW_MARK)) return parseJson<CachedAnswer>(text);
    const newline = text.indexOf("\n");
    const header = newline > 0 ? parseJson<RawHeader>(text.slice(RAW_MARK.length, newline)) : null;
    let response: CanonicalResponse | null = null;
    if (header) {
      const { kind, api, usage } = header;
      response = decodeRaw({ kind, api, text: text.slice(newline + 1), ...(usage ? { usage } : {}) });
    }
    if (!header || !response || !STORABLE.has(response.stopReason.unified)) {
      lru.delete(key);
      return null;
    }
    const answer: CachedAnswer = { response, headers: header.headers, storedAt: header.storedAt };
    const decoded = JSON.stringify(answer);
    lru.set(key, decoded, Buffer.byteLength(decoded) + key.length, answer.storedAt + ttlMs);
    return answer;
  }

  async function fromL2(key: string): Promise<CachedAnswer | null> {
    if (!redis) return null;
    let text: unknown;
    try {
      text = await withTimeout(redis.client.send("GET", [redisKey(key)]), timeoutMs);
      l2Degraded = false;
    } catch {
      l2Degraded = true;
      return null;
    }
    if (typeof text !== "string") return null;
    const answer = read(key, text);
    if (!answer || answer.storedAt + ttlMs <= now()) {
      lru.delete(key);
      return null;
    }
    // A raw text was decoded into L1 by `read`; a decoded one goes there as it came.
    if (!text.startsWith(RAW_MARK)) lru.set(key, text, Buffer.byteLength(text) + key.length, answer.storedAt + ttlMs);
    return answer;
  }

  return {
    get(key) {
      const text = lru.get(key);
      if (text !== undefined) return read(key, text);
      return redis ? fromL2(key) : null;
    },
    put(key, answer, headers) {
      const storedAt = now();
      let text: string;
      if (isRaw(answer)) text = serialiseRaw(answer, headers, storedAt);
      else if (STORABLE.has(answer.stopReason.unified)) text = JSON.stringify({ response: answer, headers, storedAt } satisfies CachedAnswer);
      else return;
      lru.set(key, text, Buffer.byteLength(text) + key.length, storedAt + ttlMs);
      if (!redis) return;
      withTimeout(redis.client.send("SET", [redisKey(key), text, "PX", String(ttlMs)]), timeoutMs).then(
        () => void (l2Degraded = false),
        () => void (l2Degraded = true),
      );
    },
    get l2Degraded() {
      return l2Degraded;
    },
  };
}
