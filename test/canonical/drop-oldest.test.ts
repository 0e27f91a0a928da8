import { describe, expect, test } from "bun:test";
import { dropOldest, trimmedSize } from "../../src/canonical/drop-oldest.ts";
import { createMemoryPinStore } from "../../src/routing/create-memory-pin-store.ts";
import type { ConversationPin } from "../../src/routing/pin-store.ts";

describe("dropOldest", () => {
  test("drops the oldest entries down to `keep` in one walk, telling of each; a map within it is left alone", () => {
    const map = new Map(Array.from({ length: 10 }, (_, i) => [`k${i}`, i] as const));
    const dropped: string[] = [];
    dropOldest(map, 7, (key, value) => dropped.push(`${key}=${value}`));
    expect(dropped).toEqual(["k0=0", "k1=1", "k2=2"]);
    expect([...map.keys()]).toEqual(["k3", "k4", "k5", "k6", "k7", "k8", "k9"]);
    dropOldest(map, 7, () => dropped.push("again"));
    expect(dropped).toHaveLength(3);
  });

  test("a bound is trimmed to seven eighths of it, and below 8 to itself", () => {
    expect([trimmedSize(100_000), trimmedSize(16), trimmedSize(8), trimmedSize(7), trimmedSize(2)]).toEqual([87_500, 14, 7, 7, 2]);
  });
});

describe("the memory pin store at its bound", () => {
  const pin: ConversationPin = { model: "m", taskClass: "code", baseEffort: "low", escalation: { steps: 0, seen: "" } } as ConversationPin;

  test("past its bound it keeps seven eighths, the pins used last", () => {
    const store = createMemoryPinStore(16, () => 0);
    for (let i = 0; i < 16; i++) store.set(`k${i}`, pin, 1_000);
    // k0 is read: now used last.
    expect(store.get("k0")).not.toBeNull();
    store.set("k16", pin, 1_000);
    const kept = Array.from({ length: 17 }, (_, i) => `k${i}`).filter((key) => store.get(key) !== null);
    expect(kept).toHaveLength(14);
    expect(kept).toContain("k0");
    expect(kept).toContain("k16");
    expect(kept).not.toContain("k1");
  });
});
