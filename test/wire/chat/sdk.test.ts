import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { chatFormat } from "../../../src/wire/chat/client-side.ts";

/**
 * The Chat client format served to the official `openai` SDK: a small server answers with the
 * encoders' output for canned canonical answers, picked by `model`.
 */
const usage = { inputTokens: 120, outputTokens: 45, cacheReadTokens: 100, cacheWriteTokens: 0, reasoningTokens: 12 };

const TOOL_EVENTS: StreamEvent[] = [
  { type: "start", id: "chatcmpl-t1", model: "sim-normal" },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "Two lookups." },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "Checking " },
  { type: "text_delta", index: 1, text: "both." },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_call", id: "call_w", name: "get_weather" } },
  { type: "tool_args_delta", index: 2, fragment: '{"city":"Pa' },
  { type: "block_start", index: 3, block: { type: "tool_call", id: "call_t", name: "get_time" } },
  { type: "tool_args_delta", index: 3, fragment: '{"zone":' },
  { type: "tool_args_delta", index: 2, fragment: 'ris","days":2}' },
  { type: "tool_args_delta", index: 3, fragment: '"CET"}' },
  { type: "block_stop", index: 2 },
  { type: "block_stop", index: 3 },
  { type: "finish", stopReason: { unified: "tool_use", raw: "tool_use" }, usage },
];

const TEXT_EVENTS: StreamEvent[] = [
  { type: "start", id: "chatcmpl-x1", model: "sim-fast" },
  { type: "block_start", index: 0, block: { type: "text" } },
  { type: "text_delta", index: 0, text: "Hello, " },
  { type: "text_delta", index: 0, text: "world" },
  { type: "block_stop", index: 0 },
  { type: "finish", stopReason: { unified: "max_tokens", raw: "max_tokens" }, usage },
];

const ERROR_EVENTS: StreamEvent[] = [
  ...TEXT_EVENTS.slice(0, 3),
  { type: "error", error: { status: 529, type: "overloaded_error", message: "upstream overloaded" } },
];

const STREAMS: Record<string, StreamEvent[]> = { tools: TOOL_EVENTS, text: TEXT_EVENTS, error: ERROR_EVENTS };

const RESPONSE: CanonicalResponse = {
  id: "chatcmpl-r1",
  model: "sim-normal",
  content: [
    { type: "thinking", text: "Hidden steps", signature: "sig" },
    { type: "text", text: "Calling." },
    { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' },
    { type: "tool_call", id: "call_2", name: "get_time", arguments: '{"zone":"UTC"}' },
  ],
  stopReason: { unified: "tool_use", raw: "tool_use" },
  usage,
};

function answer(body: Record<string, unknown>): Response {
  const model = String(body.model);
  const includeUsage = typeof body.stream_options === "object" && body.stream_options !== null && (body.stream_options as Record<string, unknown>).include_usage === true;
  const ctx = { model, created: 1_700_000_000, includeUsage };
  if (body.stream !== true) return Response.json(chatFormat.encodeResponse(RESPONSE, ctx));
  let state = chatFormat.stream.initial(ctx);
  let text = "";
  for (const event of STREAMS[model] ?? []) {
    const [next, out] = chatFormat.stream.step(state, event);
    state = next;
    text += out;
  }
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

let server: ReturnType<typeof Bun.serve>;
let client: OpenAI;

beforeAll(() => {
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => answer((await req.json()) as Record<string, unknown>) });
  client = new OpenAI({ baseURL: `http://127.0.0.1:${server.port}/v1`, apiKey: "x", maxRetries: 0 });
}, 30_000);
afterAll(async () => {
  await server.stop(true);
}, 30_000);

const messages = [{ role: "user" as const, content: "hi" }];

describe("Chat encoders against the openai SDK", () => {
  test("streamed tool calls: raw chunks accumulate to the right calls, finish reason and usage", async () => {
    const stream = await client.chat.completions.create({ model: "tools", messages, stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    let lastUsage: OpenAI.CompletionUsage | null | undefined;
    const calls = new Map<number, { id: string; name: string; args: string }>();
    for await (const chunk of stream) {
      expect(chunk.model).toBe("tools");
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? "";
      finish = choice?.finish_reason ?? finish;
      for (const call of choice?.delta.tool_calls ?? []) {
        const entry = calls.get(call.index) ?? { id: "", name: "", args: "" };
        entry.id ||= call.id ?? "";
        entry.name ||= call.function?.name ?? "";
        entry.args += call.function?.arguments ?? "";
        calls.set(call.index, entry);
      }
      lastUsage = chunk.usage;
    }
    expect(text).toBe("Checking both.");
    expect(finish).toBe("tool_calls");
    expect([...calls.values()].map((c) => ({ ...c, args: JSON.parse(c.args) }))).toEqual([
      { id: "call_w", name: "get_weather", args: { city: "Paris", days: 2 } },
      { id: "call_t", name: "get_time", args: { zone: "CET" } },
    ]);
    expect(lastUsage).toMatchObject({ prompt_tokens: 120, completion_tokens: 45, total_tokens: 165, prompt_tokens_details: { cached_tokens: 100 }, completion_tokens_details: { reasoning_tokens: 12 } });
  });

  test("the SDK's stream helper builds the final completion with parsed-ready tool calls", async () => {
    const final = await client.chat.completions.stream({ model: "tools", messages, stream_options: { include_usage: true } }).finalChatCompletion();
    const message = final.choices[0]?.message;
    expect(message?.content).toBe("Checking both.");
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(message?.tool_calls?.map((c) => (c.type === "function" ? [c.id, c.function.name, JSON.parse(c.function.arguments)] : null))).toEqual([
      ["call_w", "get_weather", { city: "Paris", days: 2 }],
      ["call_t", "get_time", { zone: "CET" }],
    ]);
    expect(final.usage?.total_tokens).toBe(165);
  });

  test("text stream without include_usage: length finish and no usage", async () => {
    const stream = await client.chat.completions.create({ model: "text", messages, stream: true });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Hello, world");
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("length");
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
  });

  test("non-stream: content, tool calls, finish reason and usage", async () => {
    const completion = await client.chat.completions.create({ model: "smart", messages });
    expect(completion.model).toBe("smart");
    const choice = completion.choices[0];
    expect(choice?.message.content).toBe("Calling.");
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.tool_calls?.map((c) => (c.type === "function" ? JSON.parse(c.function.arguments) : null))).toEqual([{ city: "Oslo" }, { zone: "UTC" }]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 45, prompt_tokens_details: { cached_tokens: 100 } });
  });

  test("an in-stream error makes the SDK throw instead of ending cleanly", async () => {
    const stream = await client.chat.completions.create({ model: "error", messages, stream: true, stream_options: { include_usage: true } });
    let text = "";
    let caught: unknown;
    try {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    } catch (error) {
      caught = error;
    }
    expect(text).toBe("Hello, ");
    expect(caught).toBeInstanceOf(OpenAI.APIError);
    expect(String((caught as Error).message)).toContain("upstream overloaded");
  });

  test("the stream helper rejects on an in-stream error", async () => {
    const promise = client.chat.completions.stream({ model: "error", messages }).finalChatCompletion();
    await expect(promise).rejects.toThrow("upstream overloaded");
  });
});
