import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { clientsFor, parseSse, postJson, timeTool, weatherTool } from "./sim-fixture.ts";

let sim: SimServer;
let openai: OpenAI;

beforeAll(async () => {
  sim = await startSim();
  openai = clientsFor(sim).openai;
});
afterAll(() => sim.stop());

const MODEL = "gpt-sim-a";
const tools = [weatherTool, timeTool].map((t) => ({
  type: "function" as const,
  function: { name: t.name, description: t.description, parameters: t.input_schema },
}));

/** Collects a streamed completion the way a client would. */
async function collect(params: OpenAI.ChatCompletionCreateParamsStreaming) {
  const stream = await openai.chat.completions.create(params);
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
  const finish = chunks.map((c) => c.choices[0]?.finish_reason).find((f) => f);
  const calls = new Map<number, { id: string; name: string; args: string }>();
  for (const chunk of chunks) {
    for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
      const entry = calls.get(call.index) ?? { id: "", name: "", args: "" };
      if (call.id) entry.id = call.id;
      if (call.function?.name) entry.name = call.function.name;
      entry.args += call.function?.arguments ?? "";
      calls.set(call.index, entry);
    }
  }
  return { chunks, text, finish, calls: [...calls.values()], usage: chunks.at(-1)?.usage ?? null };
}

describe("Chat Completions API", () => {
  test("non-stream and stream with include_usage give the same text and usage", async () => {
    const messages = [{ role: "user" as const, content: "Summarise the release notes [sim words=9]" }];
    const completion = await openai.chat.completions.create({ model: MODEL, messages });
    expect(completion.model).toBe(MODEL);
    expect(completion.object).toBe("chat.completion");
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("stop");
    expect(choice?.message.content?.startsWith(`Simulated reply from ${MODEL}: Summarise the release notes `)).toBe(true);
    expect(choice?.message.content?.split(" ")).toHaveLength(9);
    expect(completion.usage?.completion_tokens).toBe(9);

    const streamed = await collect({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } });
    expect(streamed.text).toBe(choice?.message.content ?? "");
    expect(streamed.finish).toBe("stop");
    expect(streamed.chunks.length).toBeGreaterThan(4);
    expect(new Set(streamed.chunks.map((c) => c.id)).size).toBe(1);
    expect(streamed.chunks.at(-1)?.choices).toEqual([]);
    expect(streamed.usage).toEqual(completion.usage as never);
    for (const chunk of streamed.chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
  });

  test("raw stream: usage chunk only with include_usage, then [DONE]", async () => {
    const body = { model: MODEL, stream: true, messages: [{ role: "user", content: "hi [sim words=4]" }] };
    const plain = await postJson(sim, "/v1/chat/completions", body);
    const frames = parseSse(plain.text);
    expect(frames.at(-1)?.data).toBe("[DONE]");
    expect(frames.every((f) => f.event === null)).toBe(true);
    const parsed = frames.slice(0, -1).map((f) => JSON.parse(f.data));
    expect(parsed.every((c) => !("usage" in c))).toBe(true);
    expect(parsed[0].choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    expect(parsed.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: "stop" });

    const withUsage = parseSse((await postJson(sim, "/v1/chat/completions", { ...body, stream_options: { include_usage: true } })).text);
    const last = JSON.parse(withUsage.at(-2)?.data ?? "{}");
    expect(last.choices).toEqual([]);
    expect(last.usage.completion_tokens).toBe(4);
  });

  test("tool call (streamed fragments and non-stream) then tool-result follow-up", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "call get_weather for Rome" }];
    const streamed = await collect({ model: MODEL, messages, tools, stream: true });
    expect(streamed.finish).toBe("tool_calls");
    expect(streamed.calls).toHaveLength(1);
    expect(streamed.calls[0]?.name).toBe("get_weather");
    expect(streamed.calls[0]?.id).toMatch(/^call_[0-9a-f]+$/);
    expect(JSON.parse(streamed.calls[0]?.args ?? "")).toEqual({ city: "sim_city", days: 1, metric: true });
    const argFragments = streamed.chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments).length;
    expect(argFragments).toBeGreaterThan(1);

    const completion = await openai.chat.completions.create({ model: MODEL, messages, tools });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    if (call?.type !== "function") throw new Error("expected a function call");
    expect(call.id).toBe(streamed.calls[0]?.id ?? "");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "sim_city", days: 1, metric: true });

    const follow = await openai.chat.completions.create({
      model: MODEL,
      tools,
      messages: [
        ...messages,
        completion.choices[0]?.message as OpenAI.ChatCompletionMessageParam,
        { role: "tool", tool_call_id: call.id, content: "Rome: cloudy, 18C" },
      ],
    });
    expect(follow.choices[0]?.finish_reason).toBe("stop");
    expect(follow.choices[0]?.message.content).toBe("Tool result received: Rome: cloudy, 18C");
    expect(follow.choices[0]?.message.tool_calls).toBeUndefined();
  });

  test("required / named tool_choice and parallel calls by directive", async () => {
    const required = await openai.chat.completions.create({ model: MODEL, tools, tool_choice: "required", messages: [{ role: "user", content: "hello" }] });
    expect(required.choices[0]?.message.tool_calls?.map((c) => (c.type === "function" ? c.function.name : ""))).toEqual(["get_weather"]);
    const named = await openai.chat.completions.create({
      model: MODEL,
      tools,
      tool_choice: { type: "function", function: { name: "get_time" } },
      messages: [{ role: "user", content: "hello" }],
    });
    expect(named.choices[0]?.message.tool_calls?.map((c) => (c.type === "function" ? c.function.name : ""))).toEqual(["get_time"]);
    const parallel = await collect({ model: MODEL, tools, stream: true, messages: [{ role: "user", content: "[sim tool=get_weather,get_time] both" }] });
    expect(parallel.calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
    expect(JSON.parse(parallel.calls[1]?.args ?? "")).toEqual({ zone: "sim_zone", verbose: true });
    const none = await openai.chat.completions.create({ model: MODEL, tools, tool_choice: "none", messages: [{ role: "user", content: "call get_weather" }] });
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
  });

  test("reasoning_effort gives reasoning tokens but no reasoning text", async () => {
    const completion = await openai.chat.completions.create({
      model: MODEL,
      reasoning_effort: "high",
      messages: [{ role: "user", content: "think [sim words=10]" }],
    });
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBe(48);
    expect(completion.usage?.completion_tokens).toBe(58);
    expect(Object.keys(completion.choices[0]?.message ?? {})).not.toContain("reasoning_content");
    const off = await openai.chat.completions.create({ model: MODEL, reasoning_effort: "none", messages: [{ role: "user", content: "x" }] });
    expect(off.usage?.completion_tokens_details?.reasoning_tokens).toBe(0);
  });

  test("usage with cached tokens on a two-turn conversation (prompt includes cached)", async () => {
    const completion = await openai.chat.completions.create({
      model: MODEL,
      messages: [
        { role: "system", content: "s".repeat(16) },
        { role: "user", content: "u".repeat(40) },
        { role: "assistant", content: "a".repeat(40) },
        { role: "user", content: "v".repeat(20) },
      ],
    });
    // prefix ceil(96 / 4) = 24, last ceil(20 / 4) = 5
    expect(completion.usage?.prompt_tokens).toBe(29);
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(24);
    const single = await openai.chat.completions.create({
      model: MODEL,
      messages: [
        { role: "system", content: "s".repeat(16) },
        { role: "user", content: "u".repeat(40) },
      ],
    });
    expect(single.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(single.usage?.prompt_tokens).toBe(14);
  });

  test("max_completion_tokens / max_tokens → finish_reason length", async () => {
    const a = await openai.chat.completions.create({ model: MODEL, max_completion_tokens: 6, messages: [{ role: "user", content: "long [sim words=30]" }] });
    expect(a.choices[0]?.finish_reason).toBe("length");
    expect(a.choices[0]?.message.content?.split(" ")).toHaveLength(6);
    expect(a.usage?.completion_tokens).toBe(6);
    const b = await collect({ model: MODEL, max_tokens: 3, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "long" }] });
    expect(b.finish).toBe("length");
    expect(b.text).toBe(`Simulated reply from`);
  });

  test("stop strings cut the text, finish_reason stop", async () => {
    const a = await openai.chat.completions.create({ model: MODEL, stop: ["reply"], messages: [{ role: "user", content: "hello" }] });
    expect(a.choices[0]?.finish_reason).toBe("stop");
    expect(a.choices[0]?.message.content).toBe("Simulated ");
    const b = await collect({ model: MODEL, stop: "from", stream: true, messages: [{ role: "user", content: "hello" }] });
    expect(b.text).toBe("Simulated reply ");
    expect(b.finish).toBe("stop");
  });

  test("validation: missing messages, invalid JSON → 400 in the OpenAI shape", async () => {
    const missing = await postJson(sim, "/v1/chat/completions", { model: MODEL });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({
      error: { message: "Missing required parameter: 'messages'.", type: "invalid_request_error", param: "messages", code: "missing_required_parameter" },
    });
    const bad = await postJson(sim, "/v1/chat/completions", "{");
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: { type: "invalid_request_error", param: null, code: null } });
  });
});

describe("Chat Completions API: n", () => {
  const messages = [{ role: "user" as const, content: "Name three colours [sim words=5]" }];

  test("n choices, each indexed, with usage counting every one; streamed, each choice's chunks carry its index", async () => {
    const one = await openai.chat.completions.create({ model: MODEL, messages });
    const three = await openai.chat.completions.create({ model: MODEL, messages, n: 3 });
    expect(three.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    for (const choice of three.choices) {
      expect(choice.message.content).toBe(one.choices[0]!.message.content);
      expect(choice.finish_reason).toBe("stop");
    }
    expect(three.usage?.completion_tokens).toBe(3 * one.usage!.completion_tokens);
    expect(three.usage?.prompt_tokens).toBe(one.usage!.prompt_tokens);

    const stream = await openai.chat.completions.create({ model: MODEL, messages, n: 2, stream: true, stream_options: { include_usage: true } });
    const texts = new Map<number, string>();
    const finishes = new Map<number, string>();
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        texts.set(choice.index, (texts.get(choice.index) ?? "") + (choice.delta.content ?? ""));
        if (choice.finish_reason) finishes.set(choice.index, choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect([...texts.keys()]).toEqual([0, 1]);
    expect([...texts.values()]).toEqual([one.choices[0]!.message.content!, one.choices[0]!.message.content!]);
    expect([...finishes.values()]).toEqual(["stop", "stop"]);
    expect(usage?.completion_tokens).toBe(2 * one.usage!.completion_tokens);
  });

  test.each([0, 129, 1.5, "2"])("n = %p is refused with 400 naming n, as the API does", async (n) => {
    const res = await postJson(sim, "/v1/chat/completions", { model: MODEL, messages, n });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { param: "n", type: "invalid_request_error" } });
  });
});
