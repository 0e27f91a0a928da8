import { RedisClient } from "bun";
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
  readonly url: string;
  /** Namespace for the keys (tests use one per run). */
  readonly prefix?: string;
  readonly onError?: (err: unknown) => void;
  /** Longest a pin read or write may hold up a request, ms. */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 100;

/** Bun's client queues commands while it reconnects; a request must not wait for that. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The pin map shared by every instance: one Redis string per conversation with a PX expiry.
 * A Redis failure is a miss (the conversation is classified afresh), never a failed request.
 */
export function createRedisPinStore(options: RedisPinStoreOptions): PinStore {
  const client = new RedisClient(options.url, { connectionTimeout: 2_000 });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const prefix = options.prefix ?? "routelane:pin:";
  const onError = options.onError ?? ((err: unknown) => console.error("pin store failed:", err instanceof Error ? err.message : err));
  return {
    kind: "redis",
    async get(key) {
      try {
        return readPin(await withTimeout(client.get(prefix + key), timeoutMs));
      } catch (err) {
        onError(err);
        return null;
      }
    },
    async set(key, pin, ttlMs) {
      try {
        await withTimeout(client.set(prefix + key, JSON.stringify(pin), "PX", ttlMs), timeoutMs);
      } catch (err) {
        onError(err);
      }
    },
    async close() {
      client.close();
    },
  };
}
