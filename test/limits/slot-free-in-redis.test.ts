import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { startRedisProxy, type RedisProxy } from "../helpers/redis-proxy.ts";
import { knobConfig, startKnobUpstream, type KnobUpstream, KNOB_PATHS, type KnobFormat } from "../helpers/start-knob-upstream.ts";
import { deleteRedisKeys, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Issue 17 item 6, with Redis: the concurrency slot is free in Redis itself, not only on its way
 * there, by the time the client has an answer's last byte; another gateway instance taking the
 * client's next request then finds it free. The gateway's link to Redis is slowed (every command
 * reaches Redis a while after it is sent), so a release that is sent but not waited for is still
 * on its way when the client looks. Every answer kind: a model's stream and whole answer, and a
 * Smart+ turn, streamed and whole.
 */

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PREFIX = `routelane-test:${crypto.randomUUID().slice(0, 8)}:`;

const TERMINAL: Record<KnobFormat, string> = { messages: '"type":"message_stop"}\n\n', chat: "data: [DONE]\n\n", responses: '"type":"response.completed"' };

let upstream: KnobUpstream;
let proxy: RedisProxy;
let gw: TestGateway;
let redis: RedisClient;
let key: string;
let accountId: string;

describe.skipIf(!process.env.REDIS_URL)("with Redis, the slot is free in Redis when the client has the last byte", () => {
  beforeAll(async () => {
    upstream = startKnobUpstream();
    proxy = startRedisProxy();
    gw = await startTestGateway({ fileConfig: { ...knobConfig(upstream.url), redis: { keyPrefix: PREFIX } }, env: { REDIS_URL: proxy.url } });
    ({ accountId, key } = await gw.account("Enterprise"));
    await gw.store.updateAccount(accountId, { limits: { concurrentRequests: 4, requestsPerMinute: null, tokensPerMonth: null } });
    redis = new RedisClient(REDIS_URL);
    proxy.delay(150);
  }, 30_000);

  afterAll(async () => {
    proxy?.forward();
    await gw?.stop();
    upstream?.stop();
    proxy?.stop();
    redis?.close();
    await deleteRedisKeys(REDIS_URL, PREFIX);
  }, 30_000);

  /** Reads a stream up to the end of its terminal event, and no further. */
  async function readToTerminal(response: Response, format: KnobFormat): Promise<string> {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended without its terminal event: ${text.slice(-200)}`);
      text += decoder.decode(value, { stream: true });
      const at = text.indexOf(TERMINAL[format]);
      if (at >= 0 && text.indexOf("\n\n", at) >= 0) break;
    }
    await reader.cancel();
    return text;
  }

  test.each([
    ["a model's stream", "normal", true],
    ["a model's whole answer", "normal", false],
    ["a Smart+ turn, streamed", "smart-plus", true],
    ["a Smart+ turn, whole", "smart-plus", false],
  ] as const)("%s (Messages)", async (_name, tier, stream) => {
    const response = await fetch(gw.url + KNOB_PATHS.messages, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: tier, max_tokens: 64, stream, messages: [{ role: "user", content: `slot ${tier} ${stream} [knob words=3]` }] }),
    });
    expect(response.status).toBe(200);
    if (stream) await readToTerminal(response, "messages");
    else await response.arrayBuffer();
    // What another gateway instance would find now.
    expect(Number(await redis.send("ZCARD", [`${PREFIX}limits:{${accountId}}:conc`]))).toBe(0);
  });
});
