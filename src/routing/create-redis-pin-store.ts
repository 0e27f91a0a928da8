import type { RedisLink } from "../redis/create-redis-link.ts";
import { isEffort } from "./is-effort.ts";
import type { ConversationPin, PinStore } from "./pin-store.ts";

function readPin(text: string | null): ConversationPin | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return null;
    const pin = value as Record<string, unknown>;
    const escalation = pin.escalation as Record<string, unknown> | undefined;
    if (typeof pin.model !== "string" || typeof pin.taskClass !== "string" || !isEffort(pin.baseEffort)) return null;
    const steps = typeof escalation?.steps === "number" ? escalation.steps : 0;
    const seen = typeof escalation?.seen === "string" ? escalation.seen : "";
    const read: ConversationPin = { model: pin.model, taskClass: pin.taskClass, baseEffort: pin.baseEffort, escalation: { steps, seen } };
    return typeof pin.foreignTurns === "number" && pin.foreignTurns > 0 ? { ...read, foreignTurns: pin.foreignTurns } : read;
  } catch {
    return null;
  }
}

export interface RedisPinStoreOptions {
  /** The gateway's Redis link: while it is down, pins are misses without a call. */
  readonly link: RedisLink;
  /** Namespace for the keys: the configured `redis.keyPrefix` and `pin:` (tests use one per run). */
  readonly prefix: string;
}

/**
 * The pin map shared by every instance: one Redis string per conversation with a PX expiry, which
 * each read renews.
 * A Redis failure is a miss (the conversation is classified afresh), never a failed request; the
 * link logs the outage once, not each miss.
 */
export function createRedisPinStore(options: RedisPinStoreOptions): PinStore {
  const { link, prefix } = options;
  return {
    kind: "redis",
    get(key, ttlMs) {
      if (!link.up) return null;
      // GETEX (Redis 6.2+): the read and the new expiry in one command.
      return link.send(ttlMs === undefined ? "GET" : "GETEX", ttlMs === undefined ? [prefix + key] : [prefix + key, "PX", String(ttlMs)]).then(
        (text) => readPin(typeof text === "string" ? text : null),
        () => null,
      );
    },
    set(key, pin, ttlMs) {
      if (!link.up) return;
      return link.send("SET", [prefix + key, JSON.stringify(pin), "PX", String(ttlMs)]).then(
        () => {},
        () => {},
      );
    },
    // The link is the gateway's, closed with it.
    async close() {},
  };
}
