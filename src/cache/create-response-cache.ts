import type { RedisClient } from "bun";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { ShardedLru } from "./create-sharded-lru.ts";

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
  /** L2 shared by instances; absent → in-process only. */
  readonly redis?: { readonly client: RedisClient; readonly keyPrefix: string; readonly timeoutMs?: number } | undefined;
  readonly now?: () => number;
}

export interface ResponseCache {
  /** A stored answer, or null. Synchronous on an L1 hit or when there is no L2. */
  get(key: string): CachedAnswer | null | Promise<CachedAnswer | null>;
  /** Stores a complete successful answer; anything else is ignored. Never throws, never waits. */
  put(key: string, response: CanonicalResponse, headers: Readonly<Record<string, string>>): void;
  /** True after an L2 call failed, until one succeeds again. */
  readonly l2Degraded: boolean;
}

/** Stop reasons of answers that are whole and final; a paused or filtered turn is not replayed. */
const STORABLE = new Set(["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal"]);

function parse(text: string): CachedAnswer | null {
  try {
    return JSON.parse(text) as CachedAnswer;
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
  const { lru, ttlMs, redis } = options;
  const now = options.now ?? Date.now;
  const timeoutMs = redis?.timeoutMs ?? 100;
  let l2Degraded = false;
  const redisKey = (key: string) => `${redis?.keyPrefix ?? ""}rc:{${key.slice(0, key.indexOf(":"))}}:${key}`;

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
    const answer = parse(text);
    if (!answer || answer.storedAt + ttlMs <= now()) return null;
    lru.set(key, text, Buffer.byteLength(text), answer.storedAt + ttlMs);
    return answer;
  }

  return {
    get(key) {
      const text = lru.get(key);
      if (text !== undefined) return parse(text);
      return redis ? fromL2(key) : null;
    },
    put(key, response, headers) {
      if (!STORABLE.has(response.stopReason.unified)) return;
      const storedAt = now();
      const text = JSON.stringify({ response, headers, storedAt } satisfies CachedAnswer);
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
