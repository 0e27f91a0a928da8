import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { clientsFor, parseSse, postJson, rejectionOf } from "./sim-fixture.ts";

let sim: SimServer;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  sim = await startSim({
    faults: {
      "always-busy": { status: 529, message: "configured overload" },
      "slow-model": { delayMs: 60 },
      "cut-model": { cutAfterEvents: 2 },
    },
  });
  ({ anthropic, openai } = clientsFor(sim));
});
afterAll(() => sim.stop());

const messages = (content: string, model = "claude-f", stream = false) => ({
  model,
  max_tokens: 200,
  stream,
  messages: [{ role: "user", content }],
});
const chat = (content: string, model = "gpt-f", stream = false) => ({ model, stream, messages: [{ role: "user", content }] });
const responses = (content: string, model = "gpt-f", stream = false) => ({ model, stream, input: content });

describe("status faults", () => {
  test("Anthropic shape, with the type for the status and retry-after on 429", async () => {
    const res = await postJson(sim, "/v1/messages", messages('hi [sim status=429 message="slow down"]'));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.json).toMatchObject({ type: "error", error: { type: "rate_limit_error", message: "slow down" } });
    expect((res.json as { request_id: string }).request_id).toMatch(/^req_sim/);
    const cases: [number, string][] = [
      [400, "invalid_request_error"],
      [401, "authentication_error"],
      [403, "permission_error"],
      [404, "not_found_error"],
      [413, "request_too_large"],
      [500, "api_error"],
      [529, "overloaded_error"],
      [502, "api_error"],
    ];
    for (const [status, type] of cases) {
      const r = await postJson(sim, "/v1/messages", messages(`x [sim status=${status}]`));
      expect(r.status).toBe(status);
      expect((r.json as { error: { type: string } }).error.type).toBe(type);
    }
    expect(await rejectionOf(anthropic.messages.create(messages("[sim status=529]") as Anthropic.MessageCreateParamsNonStreaming))).toMatchObject({
      status: 529,
      error: { type: "error", error: { type: "overloaded_error" } },
    });
  });

  test("OpenAI shape on Chat and Responses, retry-after on 503", async () => {
    const res = await postJson(sim, "/v1/chat/completions", chat('[sim status=503 message="busy"] hi'));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.json).toEqual({ error: { message: "busy", type: "service_unavailable_error", param: null, code: "server_is_overloaded" } });
    const r429 = await postJson(sim, "/v1/responses", responses("[sim status=429]"));
    expect(r429.status).toBe(429);
    expect(r429.json).toMatchObject({ error: { type: "requests", code: "rate_limit_exceeded" } });
    const r500 = await postJson(sim, "/v1/responses", responses("[sim status=500]"));
    expect(r500.json).toMatchObject({ error: { type: "server_error" } });
    expect(await rejectionOf(openai.chat.completions.create(chat("[sim status=400]") as OpenAI.ChatCompletionCreateParamsNonStreaming))).toMatchObject({
      status: 400,
    });
  });
});

describe("delay fault", () => {
  test("waits before the first byte (directive and per-model config)", async () => {
    let started = performance.now();
    const res = await postJson(sim, "/v1/chat/completions", chat("[sim delay=80] hi"));
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    started = performance.now();
    const slow = await anthropic.messages.create(messages("hi", "slow-model") as Anthropic.MessageCreateParamsNonStreaming);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(slow.model).toBe("slow-model");
  });

  test("the wait is abandoned when the client goes away", async () => {
    const controller = new AbortController();
    const pending = fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(chat("[sim delay=5000] hi")),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toThrow();
    // The server is still answering promptly afterwards.
    const after = await postJson(sim, "/v1/chat/completions", chat("hi"));
    expect(after.status).toBe(200);
  });
});

describe("gap: a slow stream", () => {
  test("the first event comes at once, the others one by one; the stream is whole, and a client that leaves stops it", async () => {
    const res = await fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat("slow [sim gap=1000 words=1]", "gpt-f", true)),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const first = decoder.decode((await reader.read()).value);
    // One event per read: the next is a second away.
    expect(parseSse(first)).toHaveLength(1);
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
    const events = parseSse(first + rest);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const quick = await fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat("slow [sim words=1]", "gpt-f", true)),
    });
    // The same events as without the gap (ids differ: they hash the body).
    expect(parseSse(await quick.text())).toHaveLength(events.length);

    const left = await fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat("slow [sim gap=60000 words=1]", "gpt-f", true)),
    });
    const leftReader = left.body!.getReader();
    await leftReader.read();
    await leftReader.cancel();
  }, 30_000);
});

describe("cut fault", () => {
  test("raw stream stops after N events without a terminator, and the connection errors", async () => {
    const res = await fetch(`${sim.url}/v1/messages`, { method: "POST", body: JSON.stringify(messages("[sim cut=3] hi", "claude-f", true)) });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    let text = "";
    let failed = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    expect(parseSse(text).map((e) => e.event)).toEqual(["message_start", "content_block_start", "ping"]);
  });

  test("each SDK's stream throws", async () => {
    expect(await rejectionOf(anthropic.messages.stream(messages("[sim cut=4] hi") as Anthropic.MessageCreateParamsNonStreaming).finalMessage())).toBeInstanceOf(Error);
    const chatStream = await openai.chat.completions.create({ ...chat("[sim cut=2] hi"), stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const chunk of chatStream) seen.push(chunk);
      })(),
    ).rejects.toThrow();
    expect(seen).toHaveLength(2);
    expect(await rejectionOf(openai.responses.stream({ model: "gpt-f", input: "[sim cut=5] hi" }).finalResponse())).toBeInstanceOf(Error);
    expect(await rejectionOf(anthropic.messages.stream(messages("hi", "cut-model") as Anthropic.MessageCreateParamsNonStreaming).finalMessage())).toBeInstanceOf(Error);
  });

  test("non-stream: a truncated body", async () => {
    expect(await rejectionOf(openai.chat.completions.create(chat("[sim cut=0] hi") as OpenAI.ChatCompletionCreateParamsNonStreaming))).toBeInstanceOf(Error);
    expect(await rejectionOf(anthropic.messages.create(messages("[sim cut=1] hi") as Anthropic.MessageCreateParamsNonStreaming))).toBeInstanceOf(Error);
  });
});

describe("malformed fault", () => {
  test("the N-th event's data is not JSON; SDKs throw", async () => {
    const raw = await postJson(sim, "/v1/chat/completions", chat("[sim malformed=1] hi", "gpt-f", true));
    const frames = parseSse(raw.text);
    expect(() => JSON.parse(frames[0]?.data ?? "")).not.toThrow();
    expect(frames[1]?.data).toBe('{"type": broken');
    expect(frames.at(-1)?.data).toBe("[DONE]");
    const rawMessages = await postJson(sim, "/v1/messages", messages("[sim malformed=0] hi", "claude-f", true));
    expect(rawMessages.text.startsWith('event: message_start\ndata: {"type": broken\n\n')).toBe(true);

    expect(await rejectionOf(anthropic.messages.stream(messages("[sim malformed=0] hi") as Anthropic.MessageCreateParamsNonStreaming).finalMessage())).toBeInstanceOf(Error);
    const chatStream = await openai.chat.completions.create({ ...chat("[sim malformed=2] hi"), stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
    await expect(
      (async () => {
        for await (const _ of chatStream) void _;
      })(),
    ).rejects.toThrow();
    expect(await rejectionOf(openai.responses.stream({ model: "gpt-f", input: "[sim malformed=3] hi" }).finalResponse())).toBeInstanceOf(Error);
    const body = await postJson(sim, "/v1/responses", responses("[sim malformed=0] hi"));
    expect(body.status).toBe(200);
    expect(body.json).toBeUndefined();
  });
});

describe("fault sources", () => {
  test("model= restricts a directive to one model", async () => {
    const text = "[sim model=pool-first status=503] hi";
    const first = await postJson(sim, "/v1/chat/completions", chat(text, "pool-first"));
    const second = await postJson(sim, "/v1/chat/completions", chat(text, "pool-second"));
    expect(first.status).toBe(503);
    expect(second.status).toBe(200);
    expect((second.json as { choices: { message: { content: string } }[] }).choices[0]?.message.content).not.toContain("[sim");
  });

  test("x-sim-fault header, with model= filter", async () => {
    const res = await postJson(sim, "/v1/responses", responses("hi"), { "x-sim-fault": "status=503; message=\"header busy\"" });
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: { message: "header busy" } });
    const cut = await fetch(`${sim.url}/v1/responses`, {
      method: "POST",
      headers: { "x-sim-fault": "delay=10; cut=2" },
      body: JSON.stringify(responses("hi", "gpt-f", true)),
    });
    await expect(cut.text()).rejects.toThrow();
    const other = await postJson(sim, "/v1/responses", responses("hi", "gpt-other"), { "x-sim-fault": "model=gpt-f; status=500" });
    expect(other.status).toBe(200);
  });

  test("per-model config applies to every request; directive beats header beats config", async () => {
    const configured = await postJson(sim, "/v1/messages", messages("hi", "always-busy"));
    expect(configured.status).toBe(529);
    expect(configured.json).toMatchObject({ error: { type: "overloaded_error", message: "configured overload" } });
    const header = await postJson(sim, "/v1/messages", messages("hi", "always-busy"), { "x-sim-fault": "status=429" });
    expect(header.status).toBe(429);
    expect(header.json).toMatchObject({ error: { type: "rate_limit_error" } });
    const directive = await postJson(sim, "/v1/messages", messages("[sim status=404] hi", "always-busy"), { "x-sim-fault": "status=429" });
    expect(directive.status).toBe(404);
    const chatConfigured = await postJson(sim, "/v1/chat/completions", chat("hi", "always-busy"));
    expect(chatConfigured.status).toBe(529);
    expect(chatConfigured.json).toMatchObject({ error: { message: "configured overload", type: "server_error" } });
  });
});

describe("times and retry headers", () => {
  test("times=2 fails the first two identical requests for a model, then answers", async () => {
    const body = chat("twice [sim status=503 times=2]", "gpt-times");
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await postJson(sim, "/v1/chat/completions", body)).status);
    expect(statuses).toEqual([503, 503, 200]);
    // Another model, or another body, counts on its own.
    expect((await postJson(sim, "/v1/chat/completions", chat("twice [sim status=503 times=2]", "gpt-times-2"))).status).toBe(503);
  });

  test("retry-after and retry-after-ms are set on the error as written", async () => {
    const res = await postJson(sim, "/v1/messages", messages("wait [sim status=429 retry-after=2 retry-after-ms=1500]"));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.headers.get("retry-after-ms")).toBe("1500");
  });
});
