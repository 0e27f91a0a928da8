import { describe, expect, test } from "bun:test";
import { createRedisLink } from "../../src/redis/create-redis-link.ts";
import { useTestRedis } from "../helpers/test-redis.ts";
import { createResponseHistory } from "../../src/cache/create-response-history.ts";
import { createByteLru } from "../../src/cache/create-byte-lru.ts";
import type { CanonicalMessage } from "../../src/canonical/request.ts";

const testRedis = useTestRedis();
const PREFIX = testRedis.prefix;
const TTL = 60_000;

const conversation: readonly CanonicalMessage[] = [
  { role: "user", content: [{ type: "text", text: "My name is Zed." }] },
  { role: "assistant", content: [{ type: "thinking", text: "A name.", signature: "c2ln" }, { type: "text", text: "Hello, Zed." }] },
];
const newLru = () => createByteLru({ maxBytes: 1 << 20, ttlMs: TTL });

describe("response history", () => {
  test("a kept conversation comes back whole, for its own account only", async () => {
    const history = createResponseHistory({ lru: newLru(), ttlMs: TTL });
    history.put("acct_a", "resp_1", { messages: conversation });
    expect(await history.get("acct_a", "resp_1")).toEqual(conversation);
    expect(await history.get("acct_b", "resp_1")).toBeNull();
    expect(await history.get("acct_a", "resp_2")).toBeNull();
  });

  test("each turn keeps only itself; reading walks the chain back to its start", async () => {
    const history = createResponseHistory({ lru: newLru(), ttlMs: TTL });
    const turn = (text: string): CanonicalMessage[] => [
      { role: "user", content: [{ type: "text", text: `ask ${text}` }] },
      { role: "assistant", content: [{ type: "text", text: `answer ${text}` }] },
    ];
    history.put("acct_c", "resp_1", { messages: turn("one") });
    history.put("acct_c", "resp_2", { previous: "resp_1", messages: turn("two") });
    history.put("acct_c", "resp_3", { previous: "resp_2", messages: turn("three") });
    // A branch: a second answer to the first turn.
    history.put("acct_c", "resp_2b", { previous: "resp_1", messages: turn("two b") });
    expect(await history.get("acct_c", "resp_3")).toEqual([...turn("one"), ...turn("two"), ...turn("three")]);
    expect(await history.get("acct_c", "resp_2b")).toEqual([...turn("one"), ...turn("two b")]);
  });

  test("a chain with a missing link is unknown, not half a conversation", async () => {
    const history = createResponseHistory({ lru: newLru(), ttlMs: TTL });
    history.put("acct_m", "resp_2", { previous: "resp_gone", messages: conversation });
    expect(await history.get("acct_m", "resp_2")).toBeNull();
  });

  test("a cycle stops at the turn limit", async () => {
    const history = createResponseHistory({ lru: newLru(), ttlMs: TTL, maxTurns: 5 });
    history.put("acct_y", "resp_a", { previous: "resp_b", messages: conversation });
    history.put("acct_y", "resp_b", { previous: "resp_a", messages: conversation });
    expect(await history.get("acct_y", "resp_a")).toBeNull();
  });

  test("with Redis, another instance finds it", async () => {
    const one = createResponseHistory({ lru: newLru(), ttlMs: TTL, redis: { link: testRedis.link, keyPrefix: PREFIX } });
    const two = createResponseHistory({ lru: newLru(), ttlMs: TTL, redis: { link: testRedis.link, keyPrefix: PREFIX } });
    one.put("acct_r", "resp_shared", { messages: conversation });
    await testRedis.link.send("PING", []);
    expect(await two.get("acct_r", "resp_shared")).toEqual(conversation);
    const ttl = Number(await testRedis.client.send("PTTL", [`${PREFIX}rh:{acct_r}:acct_r:resp_shared`]));
    expect(ttl).toBeGreaterThan(TTL - 5_000);
  });

  test("Redis unreachable: what this instance kept still comes back, the rest is unknown", async () => {
    const down = createRedisLink({ url: "redis://127.0.0.1:1", backoffMs: 60_000 });
    const history = createResponseHistory({ lru: newLru(), ttlMs: TTL, redis: { link: down, keyPrefix: PREFIX } });
    history.put("acct_x", "resp_local", { messages: conversation });
    expect(await history.get("acct_x", "resp_local")).toEqual(conversation);
    expect(await history.get("acct_x", "resp_elsewhere")).toBeNull();
    down.close();
  });

  test("expires with its time to live", async () => {
    let now = 1_000;
    const history = createResponseHistory({ lru: createByteLru({ maxBytes: 1 << 20, ttlMs: TTL, now: () => now }), ttlMs: TTL });
    history.put("acct_t", "resp_old", { messages: conversation });
    now += TTL;
    expect(await history.get("acct_t", "resp_old")).toBeNull();
  });
});
