import type { RedisLink } from "../redis/create-redis-link.ts";
import type { CanonicalMessage } from "../canonical/request.ts";
import type { ByteLru } from "./create-byte-lru.ts";

/**
 * The conversations behind the Responses answers the gateway made itself (from a Messages or Chat
 * upstream, which keep no state): a later `previous_response_id` naming one of them gets its
 * history back, as a Responses upstream would give it. Keyed by account, so one account can never
 * continue another's conversation.
 *
 * Each answer keeps only its own turn (the new input and the answer) and the id of the answer it
 * continued, so a long conversation costs its length once, not once per turn; reading walks the
 * chain back. A chain with a missing link is unknown as a whole: half a conversation is worse than
 * none, which the caller reports.
 */
export interface ResponseHistory {
  /** The whole conversation that ended with the answer `responseId`, or null when it is not known (or expired). */
  get(accountId: string, responseId: string): Promise<readonly CanonicalMessage[] | null>;
  /** Keeps one turn: `messages` (the new input, then the answer) after the conversation of `previous`. Never throws, never waits. */
  put(accountId: string, responseId: string, turn: HistoryTurn): void;
}

export interface HistoryTurn {
  /** The answer this turn continued (its own history comes first), if any. */
  readonly previous?: string;
  readonly messages: readonly CanonicalMessage[];
}

export interface ResponseHistoryOptions {
  /** In-process level: JSON text, sized in bytes. */
  readonly lru: ByteLru;
  readonly ttlMs: number;
  /** Shared level, so any instance can continue a conversation another one answered. */
  readonly redis?: { readonly link: RedisLink; readonly keyPrefix: string } | undefined;
  /** The most turns read back for one conversation (a guard against a cycle or a runaway chain). */
  readonly maxTurns?: number;
}

function parseTurn(text: string): HistoryTurn | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || !("messages" in value) || !Array.isArray(value.messages)) return null;
    return value as HistoryTurn;
  } catch {
    return null;
  }
}

export function createResponseHistory(options: ResponseHistoryOptions): ResponseHistory {
  const { lru, ttlMs, redis } = options;
  const maxTurns = options.maxTurns ?? 10_000;
  const keyOf = (accountId: string, responseId: string) => `${accountId}:${responseId}`;
  const redisKey = (key: string) => `${redis?.keyPrefix ?? ""}rh:{${key.slice(0, key.indexOf(":"))}}:${key}`;
  const keep = (key: string, text: string) => lru.set(key, Buffer.byteLength(text), (target, offset) => void target.write(text, offset));

  async function turnOf(key: string): Promise<HistoryTurn | null> {
    const local = lru.get(key);
    if (local !== undefined) return parseTurn(local.toString());
    if (!redis?.link.up) return null;
    let text: unknown;
    try {
      text = await redis.link.send("GET", [redisKey(key)]);
    } catch {
      return null;
    }
    if (typeof text !== "string") return null;
    keep(key, text);
    return parseTurn(text);
  }

  return {
    async get(accountId, responseId) {
      const turns: (readonly CanonicalMessage[])[] = [];
      let id: string | undefined = responseId;
      while (id !== undefined) {
        if (turns.length === maxTurns) return null;
        const turn = await turnOf(keyOf(accountId, id));
        if (!turn) return null;
        turns.push(turn.messages);
        id = turn.previous;
      }
      return turns.reverse().flat();
    },
    put(accountId, responseId, turn) {
      const key = keyOf(accountId, responseId);
      const text = JSON.stringify(turn);
      keep(key, text);
      if (!redis?.link.up) return;
      redis.link.send("SET", [redisKey(key), text, "PX", String(ttlMs)]).catch(() => {});
    },
  };
}
