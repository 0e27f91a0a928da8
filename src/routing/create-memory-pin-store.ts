import { dropOldest, trimmedSize } from "../canonical/drop-oldest.ts";
import type { ConversationPin, PinStore } from "./pin-store.ts";

/** The in-process pin map: bounded, least recently used out first, entries expire after their TTL. */
export function createMemoryPinStore(maxPins: number, now: () => number = Date.now): PinStore {
  const pins = new Map<string, { pin: ConversationPin; expiresAt: number }>();
  return {
    kind: "memory",
    get(key, ttlMs) {
      const entry = pins.get(key);
      if (!entry) return null;
      pins.delete(key);
      const at = now();
      if (entry.expiresAt <= at) return null;
      if (ttlMs !== undefined) entry.expiresAt = at + ttlMs;
      pins.set(key, entry);
      return entry.pin;
    },
    set(key, pin, ttlMs) {
      pins.delete(key);
      pins.set(key, { pin, expiresAt: now() + ttlMs });
      if (pins.size > maxPins) dropOldest(pins, trimmedSize(maxPins));
    },
    async close() {
      pins.clear();
    },
  };
}
