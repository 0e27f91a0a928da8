import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { lastUpstreamRequest, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/** The built-in default config crosses formats: `fast` speaks Chat, `normal` Messages then Responses. */
let gw: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: UNCACHED_CONFIG });
  const { key } = await gw.account("Enterprise");
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);
afterAll(() => gw.stop(), 30_000);

test("a Messages client on a Chat model: the effort is set in the upstream's own field", async () => {
  const { data, response } = await anthropic.messages
    .create({ model: "fast", max_tokens: 200, thinking: { type: "enabled", budget_tokens: 4000 }, messages: [{ role: "user", content: "hello there" }] })
    .withResponse();
  const upstream = lastUpstreamRequest(gw);
  expect(upstream.path).toBe("/v1/chat/completions");
  expect(upstream.body.reasoning_effort).toBe("none");
  expect(upstream.body.thinking).toBeUndefined();
  expect(data.model).toBe("fast");
  expect(response.headers.get("x-router-model")).toBe("sim-fast");
  expect(response.headers.get("x-router-effort")).toBe("off");
});

test("a Chat client on a Messages model: thinking is set from the routed effort, not the client's", async () => {
  const { response } = await openai.chat.completions
    .create({ model: "normal", reasoning_effort: "high", messages: [{ role: "user", content: "hello there" }] })
    .withResponse();
  const upstream = lastUpstreamRequest(gw);
  expect(upstream.path).toBe("/v1/messages");
  expect(upstream.body.thinking).toMatchObject({ type: "adaptive" });
  // A short question: the rules give the normal tier's `question` class its effort.
  expect(response.headers.get("x-router-source")).toBe("rule");
  expect(response.headers.get("x-router-effort")).toBe("low");
  expect(upstream.body.output_config).toEqual({ effort: "low" });
  expect(upstream.body.reasoning_effort).toBeUndefined();
});

test("thinking turned on by the gateway drops a temperature the upstream would refuse with it", async () => {
  await openai.chat.completions.create({ model: "normal", temperature: 0.3, messages: [{ role: "user", content: "hello there" }] });
  expect(lastUpstreamRequest(gw).body.temperature).toBeUndefined();
});

test("a Chat stream without include_usage: usage is asked of the upstream, but the client gets no usage chunk", async () => {
  const stream = await openai.chat.completions.create({ model: "fast", stream: true, messages: [{ role: "user", content: "count my tokens" }] });
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const upstream = lastUpstreamRequest(gw);
  expect(upstream.path).toBe("/v1/chat/completions");
  expect(upstream.body.stream_options).toEqual({ include_usage: true });
  expect(chunks.length).toBeGreaterThan(2);
  expect(chunks.some((c) => c.choices.length === 0 || (c.usage !== undefined && c.usage !== null))).toBe(false);
  expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
});

test("a Chat stream that asks for usage gets the usage chunk", async () => {
  const stream = await openai.chat.completions.create({ model: "fast", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "count my tokens" }] });
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
  expect(usage?.completion_tokens).toBeGreaterThan(0);
});

test("a translated answer's id is in the client's own form, the upstream's id after the prefix", async () => {
  const message = await anthropic.messages.create({ model: "fast", max_tokens: 200, messages: [{ role: "user", content: "hello there" }] });
  expect(lastUpstreamRequest(gw).path).toBe("/v1/chat/completions");
  expect(message.id).toMatch(/^msg_chatcmpl-[A-Za-z0-9_-]+$/);

  const stream = anthropic.messages.stream({ model: "fast", max_tokens: 200, messages: [{ role: "user", content: "hello again" }] });
  expect((await stream.finalMessage()).id).toMatch(/^msg_chatcmpl-[A-Za-z0-9_-]+$/);

  const completion = await openai.chat.completions.create({ model: "normal", messages: [{ role: "user", content: "hello there" }] });
  expect(lastUpstreamRequest(gw).path).toBe("/v1/messages");
  expect(completion.id).toMatch(/^chatcmpl-msg_[A-Za-z0-9_-]+$/);

  const chunks = await openai.chat.completions.create({ model: "normal", stream: true, messages: [{ role: "user", content: "hello again" }] });
  const ids = new Set<string>();
  for await (const chunk of chunks) ids.add(chunk.id);
  expect([...ids]).toHaveLength(1);
  expect([...ids][0]).toMatch(/^chatcmpl-msg_[A-Za-z0-9_-]+$/);
});
