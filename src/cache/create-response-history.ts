import type { RedisClient } from "bun";
import type { CanonicalMessage } from "../canonical/request.ts";
import type { ShardedLru } from "./create-sharded-lru.ts";
import { withTimeout } from "./with-timeout.ts";

/**
 * The conversations behind the Responses answers the gateway made itself (from a Messages or Chat
 * upstream, which keep no state): a later `previous_response_id` naming one of them gets its
 * history back, as a Responses upstream would give it. Keyed by account, so one account can never
 * continue another's conversation.
 */
export interface ResponseHistory {
  /** The conversation that ended with the answer `responseId`, or null when it is not known (or expired). */
  get(accountId: string, responseId: string): Promise<readonly CanonicalMessage[] | null>;
  /** Remembers the conversation that ended with `responseId`. Never throws, never waits. */
  put(accountId: string, responseId: string, messages: readonly CanonicalMessage[]): void;
}

export interface ResponseHistoryOptions {
  /** In-process level: JSON text, sized in bytes. */
  readonly lru: ShardedLru<string>;
  readonly ttlMs: number;
  /** Shared level, so any instance can continue a conversation another one answered. */
  readonly redis?: { readonly client: RedisClient; readonly keyPrefix: string; readonly timeoutMs?: number } | undefined;
}

function parseMessages(text: string): readonly CanonicalMessage[] | null {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as CanonicalMessage[]) : null;
  } catch {
    return null;
  }
}

export function createResponseHistory(options: ResponseHistoryOptions): ResponseHistory {
  const { lru, ttlMs, redis } = options;
  const timeoutMs = redis?.timeoutMs ?? 100;
  const keyOf = (accountId: string, responseId: string) => `${accountId}:${responseId}`;
  const redisKey = (key: string) => `${redis?.keyPrefix ?? ""}rh:{${key.slice(0, key.indexOf(":"))}}:${key}`;
  const keep = (key: string, text: string) => lru.set(key, text, Buffer.byteLength(text) + key.length);

  return {
    async get(accountId, responseId) {
      const key = keyOf(accountId, responseId);
      const local = lru.get(key);
      if (local !== undefined) return parseMessages(local);
      if (!redis) return null;
      let text: unknown;
      try {
        text = await withTimeout(redis.client.send("GET", [redisKey(key)]), timeoutMs);
      } catch {
        return null;
      }
      if (typeof text !== "string") return null;
      keep(key, text);
      return parseMessages(text);
    },
    put(accountId, responseId, messages) {
      const key = keyOf(accountId, responseId);
      const text = JSON.stringify(messages);
      keep(key, text);
      if (!redis) return;
      withTimeout(redis.client.send("SET", [redisKey(key), text, "PX", String(ttlMs)]), timeoutMs).catch(() => {});
    },
  };
}
