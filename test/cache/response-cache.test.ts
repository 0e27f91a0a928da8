import { describe, expect, test } from "bun:test";
import { createRedisLink } from "../../src/redis/create-redis-link.ts";
import { useTestRedis } from "../helpers/test-redis.ts";
import { buildResponseCacheKey, readCacheControl } from "../../src/cache/build-response-cache-key.ts";
import { createResponseCache } from "../../src/cache/create-response-cache.ts";
import type { RawAnswer } from "../../src/cache/raw-answer.ts";
import { createByteLru } from "../../src/cache/create-byte-lru.ts";
import type { CanonicalResponse } from "../../src/canonical/response.ts";
import { decodeRawAnswer } from "../../src/pipeline/decode-raw-answer.ts";
import type { UnifiedStopReason } from "../../src/canonical/stop-reason.ts";

const testRedis = useTestRedis();
const PREFIX = testRedis.prefix;
const TTL = 600_000;

const answer = (text: string, unified: UnifiedStopReason = "end_turn"): CanonicalResponse => ({
  id: "msg_1",
  model: "sim-normal",
  content: [{ type: "text", text }],
  stopReason: { unified, raw: unified },
  usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
});
const ROUTER = { "x-router-tier": "normal", "x-router-model": "sim-normal", "x-router-effort": "medium", "x-router-source": "default" };
const body = { model: "normal", max_tokens: 64, messages: [{ role: "user", content: "hi" }] };
const newLru = () => createByteLru({ maxBytes: 1 << 20, ttlMs: TTL });

describe("response cache key", () => {
  test.each([
    ["stream flag and stream options do not count", buildResponseCacheKey("acct_a", "chat", { ...body, stream: true, stream_options: { include_usage: true } }), true],
    ["another account never shares", buildResponseCacheKey("acct_b", "chat", body), false],
    ["another endpoint never shares", buildResponseCacheKey("acct_a", "messages", body), false],
    ["another body differs", buildResponseCacheKey("acct_a", "chat", { ...body, max_tokens: 65 }), false],
  ])("%s", (_name, other, same) => {
    expect(buildResponseCacheKey("acct_a", "chat", body) === other).toBe(same);
  });

  test("the key starts with the account id in clear", () => {
    expect(buildResponseCacheKey("acct_a", "chat", body).startsWith("acct_a:chat:")).toBe(true);
  });

  test.each([
    [null, { lookup: true, store: true }],
    ["no-cache", { lookup: false, store: true }],
    ["No-Cache, max-age=0", { lookup: false, store: true }],
    ["no-store", { lookup: false, store: false }],
    ["max-age=60", { lookup: true, store: true }],
  ])("cache-control %p", (value, expected) => {
    const headers = new Headers(value === null ? {} : { "cache-control": value });
    expect(readCacheControl(headers)).toEqual(expected);
  });
});

describe("response cache (in-process)", () => {
  test("miss, then hit with the stored answer and its routing headers; accounts are isolated", async () => {
    const cache = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer });
    const key = buildResponseCacheKey("acct_a", "messages", body);
    expect(await cache.get(key)).toBeNull();
    cache.put(key, answer("hello"), ROUTER);
    const hit = await cache.get(key);
    expect(hit?.response).toEqual(answer("hello"));
    expect(hit?.headers).toEqual(ROUTER);
    expect(await cache.get(buildResponseCacheKey("acct_b", "messages", body))).toBeNull();
  });

  test("answers that are not whole and final are not stored", async () => {
    const cache = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer });
    for (const reason of ["pause_turn", "content_filter"] as const) {
      cache.put(`acct_a:x:${reason}`, answer("x", reason), ROUTER);
      expect(await cache.get(`acct_a:x:${reason}`)).toBeNull();
    }
  });

  test("expires after the TTL", async () => {
    let t = 1_000;
    const cache = createResponseCache({ lru: createByteLru({ maxBytes: 1 << 20, ttlMs: TTL, now: () => t }), ttlMs: TTL, decodeRaw: decodeRawAnswer, now: () => t });
    cache.put("acct_a:k", answer("x"), ROUTER);
    t += TTL - 1;
    expect(await cache.get("acct_a:k")).not.toBeNull();
    t += 1;
    expect(await cache.get("acct_a:k")).toBeNull();
  });
});

/** A passed-through answer as the client got it: kept raw, decoded at its first hit. */
const rawJson = (text: string, stop = "end_turn"): RawAnswer => ({
  kind: "json",
  api: "messages",
  bytes: [Buffer.from(JSON.stringify({ id: "msg_raw", type: "message", role: "assistant", model: "normal", content: [{ type: "text", text }], stop_reason: stop, stop_sequence: null, usage: { input_tokens: 7, output_tokens: 3 } }))],
});
const sse = (events: Array<[string, object]>): string => events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
const messagesStream = (finished: boolean, text = "streamed"): string =>
  sse([
    ["message_start", { type: "message_start", message: { id: "msg_s", type: "message", role: "assistant", model: "normal", content: [], usage: { input_tokens: 9, output_tokens: 1 } } }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
    ...(finished
      ? ([
          ["content_block_stop", { type: "content_block_stop", index: 0 }],
          ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4 } }],
          ["message_stop", { type: "message_stop" }],
        ] as Array<[string, object]>)
      : []),
  ]);

describe("response cache, raw answers", () => {
  test("a raw JSON answer is decoded at its first hit, and L1 keeps the decoded form", async () => {
    const lru = newLru();
    const cache = createResponseCache({ lru, ttlMs: TTL, decodeRaw: decodeRawAnswer });
    cache.put("acct_a:raw", rawJson("kept raw"), ROUTER);
    // Kept as it came: the mark, the header line, the body.
    expect(lru.get("acct_a:raw")?.[0]).toBe(1);
    const hit = await cache.get("acct_a:raw");
    expect(hit?.response).toMatchObject({ content: [{ type: "text", text: "kept raw" }], stopReason: { unified: "end_turn" }, usage: { inputTokens: 7, outputTokens: 3 } });
    expect(hit?.headers).toEqual(ROUTER);
    expect(JSON.parse(lru.get("acct_a:raw")!.toString())).toEqual(JSON.parse(JSON.stringify(hit)));
    expect(await cache.get("acct_a:raw")).toEqual(hit);
  });

  test("a raw stream is rebuilt at its first hit; usage kept beside it wins", async () => {
    const cache = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer });
    const usage = { inputTokens: 40, outputTokens: 4, cacheReadTokens: 30, cacheWriteTokens: 0, reasoningTokens: 0 };
    // As the pipe hands them over: several chunks, one event split across two.
    const events = Buffer.from(messagesStream(true));
    cache.put("acct_a:stream", { kind: "stream", api: "messages", bytes: [events.subarray(0, 100), events.subarray(100, 333), events.subarray(333)], usage }, ROUTER);
    const hit = await cache.get("acct_a:stream");
    expect(hit?.response).toMatchObject({ content: [{ type: "text", text: "streamed" }], stopReason: { unified: "end_turn" }, usage });
  });

  test.each([
    ["a stream that never finished", { kind: "stream", api: "messages", bytes: [Buffer.from(messagesStream(false))] } satisfies RawAnswer],
    ["a paused turn", rawJson("x", "pause_turn")],
    ["a cut JSON body", { ...rawJson("x"), bytes: [Buffer.from(rawJson("x").bytes[0]!).subarray(0, 40)] }],
  ])("%s is dropped at its first hit, not replayed", async (_name, raw) => {
    const lru = newLru();
    const cache = createResponseCache({ lru, ttlMs: TTL, decodeRaw: decodeRawAnswer });
    cache.put("acct_a:bad", raw, ROUTER);
    expect(await cache.get("acct_a:bad")).toBeNull();
    expect(lru.get("acct_a:bad")).toBeUndefined();
  });

  test("a raw answer stored by one instance is decoded by another through L2", async () => {
    const one = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer, redis: { link: testRedis.link, keyPrefix: PREFIX } });
    const two = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer, redis: { link: testRedis.link, keyPrefix: PREFIX } });
    one.put("acct_raw:l2", rawJson("via redis"), ROUTER);
    await testRedis.link.send("PING", []);
    expect((await two.get("acct_raw:l2"))?.response.content).toEqual([{ type: "text", text: "via redis" }]);
    expect(two.get("acct_raw:l2") instanceof Promise).toBe(false);
  });

  test("a raw stream goes to L2 as its bytes: text cut inside a character between chunks comes back whole", async () => {
    const one = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer, redis: { link: testRedis.link, keyPrefix: PREFIX } });
    const two = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer, redis: { link: testRedis.link, keyPrefix: PREFIX } });
    const events = Buffer.from(messagesStream(true, "héllo ✓ wörld"));
    const cut = events.indexOf("✓") + 1;
    one.put("acct_raw:l2-stream", { kind: "stream", api: "messages", bytes: [events.subarray(0, cut), events.subarray(cut)] }, ROUTER);
    await testRedis.link.send("PING", []);
    const stored = await testRedis.client.getBuffer(`${PREFIX}rc:{acct_raw}:acct_raw:l2-stream`);
    expect(Buffer.from(stored!).subarray(Buffer.from(stored!).indexOf("\n") + 1).equals(events)).toBe(true);
    const hit = await two.get("acct_raw:l2-stream");
    expect(hit?.response.content).toEqual([{ type: "text", text: "héllo ✓ wörld" }]);
    expect(hit?.headers).toEqual(ROUTER);
  });
});

describe("response cache with a Redis L2", () => {
  test("an answer stored by one instance is a hit on another", async () => {
    const one = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer, redis: { link: testRedis.link, keyPrefix: PREFIX } });
    const two = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer, redis: { link: testRedis.link, keyPrefix: PREFIX } });
    const key = buildResponseCacheKey("acct_l2", "responses", body);
    one.put(key, answer("shared"), ROUTER);
    await testRedis.link.send("PING", []);
    const hit = await two.get(key);
    expect(hit?.response.content).toEqual([{ type: "text", text: "shared" }]);
    // Now in two's L1: synchronous.
    expect(two.get(key) instanceof Promise).toBe(false);
    const ttl = Number(await testRedis.client.send("PTTL", [`${PREFIX}rc:{acct_l2}:${key}`]));
    expect(ttl).toBeGreaterThan(TTL - 5000);
  });

  test("Redis unreachable: misses, not errors", async () => {
    const down = createRedisLink({ url: "redis://127.0.0.1:1", backoffMs: 60_000 });
    const cache = createResponseCache({ lru: newLru(), ttlMs: TTL, decodeRaw: decodeRawAnswer, redis: { link: down, keyPrefix: PREFIX } });
    expect(await cache.get("acct_x:k")).toBeNull();
    expect(cache.l2Degraded).toBe(true);
    cache.put("acct_x:k", answer("local"), ROUTER);
    expect((await cache.get("acct_x:k"))?.response.content).toEqual([{ type: "text", text: "local" }]);
    down.close();
  });
});
