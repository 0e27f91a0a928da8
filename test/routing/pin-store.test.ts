import { afterAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { heapStats } from "bun:jsc";
import { EFFORTS } from "../../src/canonical/effort.ts";
import { createMemoryPinStore } from "../../src/routing/create-memory-pin-store.ts";
import { createRedisPinStore } from "../../src/routing/create-redis-pin-store.ts";
import { hashKey } from "../../src/routing/hash-key.ts";
import { createRedisLink, type RedisStateChange } from "../../src/redis/create-redis-link.ts";
import type { ConversationPin } from "../../src/routing/pin-store.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const pin: ConversationPin = { model: "sim-normal", taskClass: "coding", baseEffort: "medium", escalation: { steps: 1, seen: "t1" } };

describe("memory pin store", () => {
  test("expires pins after their TTL and keeps at most maxPins", () => {
    let now = 0;
    const store = createMemoryPinStore(2, () => now);
    store.set("a", pin, 100);
    store.set("b", { ...pin, model: "b" }, 100);
    expect(store.get("a")).toEqual(pin); // a is now most recent
    store.set("c", { ...pin, model: "c" }, 100);
    expect([store.get("b"), (store.get("a") as ConversationPin).model, (store.get("c") as ConversationPin).model]).toEqual([null, "sim-normal", "c"]);
    now = 100;
    expect(store.get("a")).toBeNull();
  });

  test("a read with a TTL renews the pin; a read without one does not", () => {
    let now = 0;
    const store = createMemoryPinStore(10, () => now);
    store.set("a", pin, 100);
    store.set("b", pin, 100);
    now = 90;
    expect(store.get("a", 100)).toEqual(pin);
    expect(store.get("b")).toEqual(pin);
    now = 150;
    expect([store.get("a"), store.get("b")]).toEqual([pin, null]);
    now = 190;
    expect(store.get("a")).toBeNull();
  });

  /** The i-th of many pins, each field varied on its own, `seen` and `foreignTurns` only on some. */
  const pinNumber = (i: number): ConversationPin => ({
    model: `model-${i % 7}`,
    taskClass: `class-${i % 5}`,
    baseEffort: EFFORTS[i % EFFORTS.length]!,
    escalation: { steps: i % 4, seen: i % 3 === 0 ? `seen-${i}` : "" },
    ...(i % 2 === 0 ? { foreignTurns: i % 9 } : {}),
  });
  const expected = (i: number): ConversationPin => {
    const { foreignTurns, ...rest } = pinNumber(i);
    return foreignTurns ? { ...rest, foreignTurns } : rest;
  };

  test("each pin reads back as it was set, as the store grows past its first room and reuses the slots of pins it let go", () => {
    let now = 0;
    const store = createMemoryPinStore(3000, () => now);
    for (let i = 0; i < 3000; i++) store.set(`k${i}`, pinNumber(i), 1000);
    for (let i = 0; i < 3000; i++) expect(store.get(`k${i}`)).toEqual(expected(i));
    // Past the bound the least recently used go, an eighth at once (3001 down to 2625); their
    // slots take the pins that come next.
    for (let i = 3000; i < 3376; i++) store.set(`k${i}`, pinNumber(i), 1000);
    expect(store.get("k0")).toBeNull();
    expect(store.get("k375")).toBeNull();
    for (let i = 376; i < 3376; i++) expect(store.get(`k${i}`)).toEqual(expected(i));
    // An expired pin's slot is given back too.
    now = 1000;
    expect(store.get("k400")).toBeNull();
    now = 0;
    store.set("new", pinNumber(2), 1000);
    expect([store.get("k400"), store.get("new"), store.get("k401")]).toEqual([null, expected(2), expected(401)]);
  });

  test("holds neither a pin nor its key as objects for the collector to mark", () => {
    const count = 20_000;
    const store = createMemoryPinStore(count);
    const objects = (): number => {
      Bun.gc(true);
      return heapStats().objectCount;
    };
    const before = objects();
    // Fresh objects each time, as each answer's pin and key are: held as they came, three or four a
    // pin stayed, and the key one more.
    for (let i = 0; i < count; i++) store.set(hashKey([String(i)]), { model: "sim-normal", taskClass: "coding", baseEffort: "medium", escalation: { steps: 1, seen: "" } }, 60_000);
    const added = objects() - before;
    expect(store.get(hashKey(["0"]))).toEqual({ model: "sim-normal", taskClass: "coding", baseEffort: "medium", escalation: { steps: 1, seen: "" } });
    expect(added).toBeLessThan(count / 10);
  });

  test("two keys alike in their first 52 bits never read each other's pin: the later takes the slot", () => {
    const store = createMemoryPinStore(10);
    const [a, b] = [`0123456789abc${"0".repeat(19)}`, `0123456789abc${"1".repeat(19)}`];
    store.set(a, pin, 1000);
    expect(store.get(b)).toBeNull();
    store.set(b, { ...pin, model: "b" }, 1000);
    expect([store.get(a), (store.get(b) as ConversationPin | null)?.model]).toEqual([null, "b"]);
    // Keys of another spelling are hashed first, and still tell apart.
    store.set("plain", { ...pin, model: "plain" }, 1000);
    expect([(store.get("plain") as ConversationPin | null)?.model, store.get("Plain")]).toEqual(["plain", null]);
  });
});

describe("redis pin store", () => {
  const prefix = `routelane-test:${process.pid}:${crypto.randomUUID()}:`;
  const admin = new RedisClient(REDIS_URL);
  const link = createRedisLink({ url: REDIS_URL });
  const store = createRedisPinStore({ link, prefix });
  afterAll(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    admin.close();
    await store.close();
    link.close();
  }, 30_000);

  test("a pin round-trips, with its TTL set in Redis", async () => {
    await store.set("conv1", pin, 60_000);
    expect(await store.get("conv1")).toEqual(pin);
    const ttl = await admin.pttl(`${prefix}conv1`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await store.get("missing")).toBeNull();
  });

  test("a pin is gone after its TTL", async () => {
    await store.set("short", pin, 50);
    expect(await store.get("short")).toEqual(pin);
    // Redis expires the key itself; poll for it rather than sleep a fixed time.
    const deadline = Date.now() + 5_000;
    while ((await admin.exists(`${prefix}short`)) && Date.now() < deadline) await Bun.sleep(20);
    expect(await store.get("short")).toBeNull();
  });

  test("a read with a TTL renews the pin in the same command; a read without one leaves the TTL", async () => {
    await store.set("renewed", pin, 1_000);
    expect(await store.get("renewed")).toEqual(pin);
    expect(await admin.pttl(`${prefix}renewed`)).toBeLessThanOrEqual(1_000);
    expect(await store.get("renewed", 60_000)).toEqual(pin);
    expect(await admin.pttl(`${prefix}renewed`)).toBeGreaterThan(50_000);
  });

  test("a malformed value reads as no pin", async () => {
    await admin.set(`${prefix}bad`, "{not json");
    await admin.set(`${prefix}wrong`, JSON.stringify({ model: 1 }));
    expect([await store.get("bad"), await store.get("wrong")]).toEqual([null, null]);
  });

  test("an unreachable Redis is a miss, not an error; once it is known down, a miss at once and the outage said once", async () => {
    const changes: RedisStateChange[] = [];
    const downLink = createRedisLink({ url: "redis://127.0.0.1:1", backoffMs: 60_000, onChange: (c) => void changes.push(c) });
    const down = createRedisPinStore({ link: downLink, prefix });
    await down.set("x", pin, 1000);
    expect(await down.get("x")).toBeNull();
    expect(downLink.up).toBe(false);
    // Known down: answered without a call, synchronously.
    expect(down.get("x")).toBeNull();
    for (let i = 0; i < 20; i++) await down.set(`y${i}`, pin, 1000);
    expect(changes.map((c) => c.state)).toEqual(["down"]);
    await down.close();
    downLink.close();
  });
});
