import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/** The response cache through the real gateway, with the built-in config (cache on). */
let gw: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;
let otherAccount: Anthropic;

beforeAll(async () => {
  gw = await startTestGateway();
  const { key } = await gw.account("Enterprise");
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  otherAccount = new Anthropic({ baseURL: gw.url, apiKey: (await gw.account("Enterprise")).key, maxRetries: 0 });
}, 60_000);
afterAll(() => gw.stop(), 30_000);

const upstreamCalls = (): number => gw.gateway.sim!.received.length;
const ask = (text: string): Anthropic.MessageCreateParamsNonStreaming => ({ model: "normal", max_tokens: 300, messages: [{ role: "user", content: text }] });

describe("response cache", () => {
  test("an identical request is answered from cache, marked hit, without calling the upstream", async () => {
    const first = await anthropic.messages.create(ask("cache me once please")).withResponse();
    const before = upstreamCalls();
    const second = await anthropic.messages.create(ask("cache me once please")).withResponse();
    expect(upstreamCalls()).toBe(before);
    expect(first.response.headers.get("x-router-cache")).toBeNull();
    expect(second.response.headers.get("x-router-cache")).toBe("hit");
    expect(second.data.content).toEqual(first.data.content);
    expect(second.data.usage.output_tokens).toBe(first.data.usage.output_tokens);
    // The hit is a request of its own: its own id, the first answer's routing.
    expect(second.response.headers.get("x-router-request-id")).not.toBe(first.response.headers.get("x-router-request-id"));
    expect(second.response.headers.get("x-router-model")).toBe(first.response.headers.get("x-router-model"));
  });

  test("a hit is replayed as a stream when the new request streams", async () => {
    const whole = await anthropic.messages.create(ask("stream me from the cache"));
    const before = upstreamCalls();
    const streamed = await anthropic.messages.stream(ask("stream me from the cache")).finalMessage();
    expect(upstreamCalls()).toBe(before);
    const blocks = (m: Anthropic.Message) => m.content.map((b) => (b.type === "text" ? ["text", b.text] : b.type === "thinking" ? ["thinking", b.thinking, b.signature] : [b.type]));
    expect(blocks(streamed)).toEqual(blocks(whole));
    expect(streamed.stop_reason).toBe(whole.stop_reason);
  });

  test("a streamed answer is stored too, and a Chat stream replays it with the usage chunk it asks for", async () => {
    const body = { model: "fast", messages: [{ role: "user" as const, content: "stream first, then replay" }] };
    let first = "";
    for await (const chunk of await openai.chat.completions.create({ ...body, stream: true })) first += chunk.choices[0]?.delta.content ?? "";
    const before = upstreamCalls();
    let replayed = "";
    let usage: OpenAI.CompletionUsage | undefined;
    const { data: stream, response } = await openai.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }).withResponse();
    for await (const chunk of stream) {
      replayed += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(upstreamCalls()).toBe(before);
    expect(response.headers.get("x-router-cache")).toBe("hit");
    expect(replayed).toBe(first);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  test("an answer kept as the bytes sent is intact at a first hit after other traffic and a collection", async () => {
    const first = await anthropic.messages.create(ask("kept raw across traffic"));
    let streamed = "";
    const chatBody = { model: "fast", messages: [{ role: "user" as const, content: "kept raw stream across traffic" }] };
    for await (const chunk of await openai.chat.completions.create({ ...chatBody, stream: true })) streamed += chunk.choices[0]?.delta.content ?? "";
    await Promise.all(Array.from({ length: 20 }, (_, i) => anthropic.messages.create(ask(`other traffic ${i}`))));
    Bun.gc(true);
    const before = upstreamCalls();
    const again = await anthropic.messages.create(ask("kept raw across traffic")).withResponse();
    const replayed = await openai.chat.completions.create({ ...chatBody, stream: false }).withResponse();
    expect(upstreamCalls()).toBe(before);
    expect(again.response.headers.get("x-router-cache")).toBe("hit");
    expect(again.data.content).toEqual(first.content);
    expect(replayed.response.headers.get("x-router-cache")).toBe("hit");
    expect(replayed.data.choices[0]?.message.content).toBe(streamed);
  });

  test("cache-control: no-cache goes to the upstream", async () => {
    await anthropic.messages.create(ask("bypass me"));
    const before = upstreamCalls();
    const { response } = await anthropic.messages.create(ask("bypass me"), { headers: { "cache-control": "no-cache" } }).withResponse();
    expect(upstreamCalls()).toBe(before + 1);
    expect(response.headers.get("x-router-cache")).toBeNull();
  });

  test("an account over its plan's request rate is refused even what is stored for it: the lookup starts early, the answer waits for the plan", async () => {
    const { key } = await gw.account("Starter");
    const send = () =>
      fetch(`${gw.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify(ask("stored, then refused")),
      });
    const first = await send();
    await first.text();
    const limit = Number(first.headers.get("x-ratelimit-limit-requests"));
    expect(limit).toBeGreaterThan(1);
    // The rest of the minute's requests, each a hit.
    for (let i = 1; i < limit; i++) {
      const hit = await send();
      await hit.text();
      expect(hit.headers.get("x-router-cache")).toBe("hit");
    }
    const before = upstreamCalls();
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-router-cache")).toBeNull();
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
    expect(upstreamCalls()).toBe(before);
  });

  test("never shared between accounts", async () => {
    await anthropic.messages.create(ask("mine, not yours"));
    const before = upstreamCalls();
    const { response } = await otherAccount.messages.create(ask("mine, not yours")).withResponse();
    expect(upstreamCalls()).toBe(before + 1);
    expect(response.headers.get("x-router-cache")).toBeNull();
  });

  test("a failed answer is not stored", async () => {
    const failing = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": (anthropic as unknown as { apiKey: string }).apiKey, "content-type": "application/json", "anthropic-version": "2023-06-01", "x-sim-fault": "status=400" },
      body: JSON.stringify(ask("fail then succeed")),
    });
    expect(failing.status).toBe(400);
    await failing.text();
    const before = upstreamCalls();
    const { response } = await anthropic.messages.create(ask("fail then succeed")).withResponse();
    expect(upstreamCalls()).toBe(before + 1);
    expect(response.headers.get("x-router-cache")).toBeNull();
  });
});

describe("response cache: Chat n > 1", () => {
  test("an answer with several choices is not replayed from the cache, which holds one choice per answer", async () => {
    const body = { model: "fast", n: 2, messages: [{ role: "user" as const, content: "two choices, twice" }] };
    const first = await openai.chat.completions.create(body);
    expect(first.choices).toHaveLength(2);
    const before = upstreamCalls();
    const { data: second, response } = await openai.chat.completions.create(body).withResponse();
    expect(response.headers.get("x-router-cache")).toBeNull();
    expect(upstreamCalls()).toBe(before + 1);
    expect(second.choices).toHaveLength(2);
  });
});
