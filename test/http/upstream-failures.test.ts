import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { rejectionOf } from "../helpers/rejection-of.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

let gw: TestGateway;
let key: string;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: { ...UNCACHED_CONFIG, server: { ...UNCACHED_CONFIG.server, upstreamTimeoutMs: 1000 } } });
  ({ key } = await gw.account("Enterprise"));
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
}, 30_000);
afterAll(() => gw.stop(), 30_000);

const ask = (text: string) => ({ model: "normal", max_tokens: 256, messages: [{ role: "user" as const, content: text }] });

async function post(path: string, body: object, headers: Record<string, string> = {}) {
  const res = await fetch(gw.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("upstream errors before the first byte are mapped into the caller's format", () => {
  test.each([
    ["[sim status=503]", 529, "overloaded_error", 503, "overloaded_error"],
    ["[sim status=529]", 529, "overloaded_error", 503, "overloaded_error"],
    ["[sim status=500]", 502, "api_error", 502, "api_error"],
    // Every model of the pool rate-limited: to the caller that is "all busy", not its own plan limit.
    ["[sim status=429]", 529, "overloaded_error", 503, "overloaded_error"],
    // The Messages API has no `upstream_error`: its callers get `api_error`.
    ["[sim status=401]", 502, "api_error", 502, "upstream_error"],
    ['[sim status=400 message="max_tokens is too large"]', 400, "invalid_request_error", 400, "invalid_request_error"],
  ] as const)("%s → Messages %d %s, Chat %d %s", async (directive, messagesStatus, type, chatStatus, chatType) => {
    const messages = await post("/v1/messages", ask(`hello ${directive}`));
    expect(messages.status).toBe(messagesStatus);
    const body = JSON.parse(messages.text) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe(type);
    // Routing happened, so the decision headers are there even on errors, naming the model tried
    // last (a 400 ends the search at the first).
    expect(messages.headers.get("x-router-model")).toBe(messagesStatus === 400 ? "sim-normal" : "sim-normal-b");
    const chat = await post("/v1/chat/completions", { model: "normal", messages: [{ role: "user", content: `hello ${directive}` }] });
    expect(chat.status).toBe(chatStatus);
    expect((JSON.parse(chat.text) as { error: { type: string } }).error.type).toBe(chatType);
  });

  test("the upstream's own 400 message reaches the client", async () => {
    const res = await post("/v1/messages", ask('hi [sim status=400 message="max_tokens is too large"]'));
    expect((JSON.parse(res.text) as { error: { message: string } }).error.message).toBe("max_tokens is too large");
  });

  test("a malformed first event fails the request with a status, not a broken stream", async () => {
    const res = await post("/v1/messages", { ...ask("hi [sim malformed=0]"), stream: true });
    expect(res.status).toBe(502);
    expect(res.text).toContain("malformed");
  });

  test("the fault header reaches the simulated upstream", async () => {
    const res = await post("/v1/responses", { model: "normal", input: "hi" }, { "x-sim-fault": "status=503" });
    expect(res.status).toBe(503);
  });
});

describe("an upstream that does not answer in time", () => {
  test.each([false, true])("stream %p → 504 timeout_error, not a hung connection", async (stream) => {
    const res = await post("/v1/messages", { ...ask("hi [sim delay=5000]"), stream });
    expect(res.status).toBe(504);
    expect((JSON.parse(res.text) as { error: { type: string; message: string } }).error).toEqual({
      type: "timeout_error",
      message: "all 2 candidate models failed; last: upstream did not answer within 1000 ms",
    });
  });

  test("a delay within the deadline is just a slow answer", async () => {
    const res = await post("/v1/chat/completions", { model: "normal", messages: [{ role: "user", content: "hi [sim delay=100]" }] });
    expect(res.status).toBe(200);
  });
});

describe("a stream cut after the first byte ends with the format's error event, never cleanly", () => {
  test("Messages: event: error, and the SDK throws", async () => {
    const raw = await post("/v1/messages", { ...ask("hi [sim cut=3]"), stream: true });
    expect(raw.status).toBe(200);
    expect(raw.text).toContain("event: message_start");
    expect(raw.text).not.toContain("event: message_stop");
    expect(raw.text.trimEnd().split("\n\n").at(-1)).toStartWith("event: error\ndata: ");
    const error = await rejectionOf(anthropic.messages.stream(ask("hi [sim cut=3]")).finalMessage());
    expect(String(error)).toMatch(/upstream (stream ended before it was complete|connection broke mid-stream)/);
  });

  test("Chat: an error chunk and no [DONE]; the SDK throws", async () => {
    const raw = await post("/v1/chat/completions", { model: "normal", stream: true, messages: [{ role: "user", content: "hi [sim cut=2]" }] });
    expect(raw.text).not.toContain("[DONE]");
    expect(raw.text.trimEnd().split("\n\n").at(-1)).toStartWith('data: {"error":');
    const stream = await openai.chat.completions.create({ model: "normal", stream: true, messages: [{ role: "user", content: "hi [sim cut=2]" }] });
    const error = await rejectionOf(
      (async () => {
        for await (const _chunk of stream);
      })(),
    );
    expect(String(error)).toMatch(/upstream (stream ended before it was complete|connection broke mid-stream)/);
  });

  test("Responses: an error event continuing the sequence numbers; the SDK throws", async () => {
    const raw = await post("/v1/responses", { model: "normal", input: "hi [sim cut=4]", stream: true });
    const events = raw.text.trimEnd().split("\n\n");
    const last = JSON.parse(events.at(-1)!.split("data: ")[1]!) as { type: string; sequence_number: number; error: { type: string } };
    const before = JSON.parse(events.at(-2)!.split("data: ")[1]!) as { sequence_number: number };
    expect(last.type).toBe("error");
    // A stream cut short is what the gateway found wrong with the upstream's answer (the same on every path).
    expect(last.error.type).toBe("upstream_error");
    expect(last.sequence_number).toBe(before.sequence_number + 1);
    const error = await rejectionOf(openai.responses.stream({ model: "normal", input: "hi [sim cut=4]" }).finalResponse());
    expect(String(error)).toMatch(/upstream (stream ended before it was complete|connection broke mid-stream)/);
  });
});
