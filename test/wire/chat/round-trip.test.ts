import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { DEFAULT_CONFIG } from "../../../src/config/default-config.ts";
import { chatFormat } from "../../../src/wire/chat/client-side.ts";
import { chatAdapter } from "../../../src/wire/chat/upstream-side.ts";
import { decodeSseText } from "./decode-sse-text.ts";

const PNG = "iVBORw0KGgo=";

/** A representative Chat body written the way the encoder writes it, so meaning-preserving means equal. */
const BODY = {
  model: "normal",
  messages: [
    { role: "system", content: "You are a careful assistant." },
    { role: "user", content: [{ type: "text", text: "What is in this picture, and the weather?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } }] },
    {
      role: "assistant",
      content: "Looking it up.",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "call_2", type: "function", function: { name: "get_time", arguments: '{"zone":"CET"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "Sunny" },
    { role: "tool", tool_call_id: "call_2", content: "12:00" },
    { role: "system", content: "Answer in one line." },
    { role: "user", content: "Thanks, summarise." },
  ],
  tools: [
    { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, description: "Weather", strict: true } },
    { type: "function", function: { name: "get_time", parameters: { type: "object", properties: { zone: { type: "string" } } } } },
  ],
  tool_choice: { type: "function", function: { name: "get_weather" } },
  parallel_tool_calls: true,
  max_completion_tokens: 800,
  stop: ["END"],
  temperature: 0.3,
  top_p: 0.9,
  presence_penalty: 0.5,
  frequency_penalty: 0.25,
  seed: 11,
  response_format: { type: "json_schema", json_schema: { name: "summary", schema: { type: "object" }, strict: true } },
  user: "user-42",
  stream: true,
  stream_options: { include_usage: true },
};

describe("round trips through the canonical model", () => {
  test("decodeRequest then the Chat adapter's encodeRequest gives back the same body (model replaced)", () => {
    const decoded = chatFormat.decodeRequest(structuredClone(BODY));
    expect(decoded.warnings).toEqual([]);
    const encoded = chatAdapter.encodeRequest(decoded.value, { upstreamModelId: "gpt-up", model: DEFAULT_CONFIG.models["sim-normal"]! });
    expect(encoded.warnings).toEqual([]);
    expect(encoded.value).toEqual({ ...BODY, model: "gpt-up" });
  });

  const usage = { inputTokens: 300, outputTokens: 80, cacheReadTokens: 200, cacheWriteTokens: 10, reasoningTokens: 20 };
  const streams: [string, StreamEvent[]][] = [
    [
      "thinking, text and parallel tool calls",
      [
        { type: "start", id: "chatcmpl-rt", model: "normal" },
        { type: "block_start", index: 0, block: { type: "thinking" } },
        { type: "thinking_delta", index: 0, text: "Plan: " },
        { type: "thinking_delta", index: 0, text: "two calls." },
        { type: "block_stop", index: 0 },
        { type: "block_start", index: 1, block: { type: "text" } },
        { type: "text_delta", index: 1, text: "Calling " },
        { type: "text_delta", index: 1, text: "tools." },
        { type: "block_stop", index: 1 },
        { type: "block_start", index: 2, block: { type: "tool_call", id: "call_a", name: "get_weather" } },
        { type: "tool_args_delta", index: 2, fragment: '{"city"' },
        { type: "tool_args_delta", index: 2, fragment: ':"Paris"}' },
        { type: "block_start", index: 3, block: { type: "tool_call", id: "call_b", name: "get_time" } },
        { type: "tool_args_delta", index: 3, fragment: '{"zone":"CET"}' },
        { type: "block_stop", index: 2 },
        { type: "block_stop", index: 3 },
        { type: "finish", stopReason: { unified: "tool_use", raw: "tool_calls" }, usage },
      ],
    ],
    [
      "text cut by the output cap",
      [
        { type: "start", id: "chatcmpl-rt2", model: "normal" },
        { type: "block_start", index: 0, block: { type: "text" } },
        { type: "text_delta", index: 0, text: "Once upon" },
        { type: "block_stop", index: 0 },
        { type: "finish", stopReason: { unified: "max_tokens", raw: "length" }, usage },
      ],
    ],
  ];
  for (const [name, events] of streams) {
    test(`stream encoder output fed to the stream decoder gives the same events: ${name}`, () => {
      let state = chatFormat.stream.initial({ model: "normal", created: 1_700_000_000, includeUsage: true });
      let text = "";
      for (const event of events) {
        const [next, out] = chatFormat.stream.step(state, event);
        state = next;
        text += out;
      }
      expect(decodeSseText(chatAdapter.stream, text)).toEqual(events);
    });
  }

  test("an in-stream error survives the trip as an error of the same kind", () => {
    let state = chatFormat.stream.initial({ model: "normal", created: 1, includeUsage: true });
    let text = "";
    const events: StreamEvent[] = [
      { type: "start", id: "x", model: "normal" },
      { type: "error", error: { status: 529, type: "overloaded_error", message: "busy" } },
    ];
    for (const event of events) {
      const [next, out] = chatFormat.stream.step(state, event);
      state = next;
      text += out;
    }
    const decoded = decodeSseText(chatAdapter.stream, text);
    expect(decoded.at(-1)).toMatchObject({ type: "error", error: { status: 529, type: "overloaded_error" } });
  });

  test("encodeResponse then decodeResponse gives back the same answer", () => {
    const response = {
      id: "chatcmpl-r",
      model: "normal",
      content: [
        { type: "thinking" as const, text: "why" },
        { type: "text" as const, text: "Here." },
        { type: "tool_call" as const, id: "call_1", name: "f", arguments: '{"a":1}' },
      ],
      stopReason: { unified: "tool_use" as const, raw: "tool_calls" },
      usage,
    };
    const body = chatFormat.encodeResponse(response, { model: "normal", created: 1, includeUsage: false });
    expect(chatAdapter.decodeResponse(body).value).toEqual(response);
  });
});

describe("recorded sim streams re-encoded for a Chat client", () => {
  const chunksOf = (text: string): Record<string, unknown>[] =>
    text
      .split("\n\n")
      .filter((f) => f.startsWith("data: {"))
      .map((f) => JSON.parse(f.slice(6)) as Record<string, unknown>);

  for (const name of ["text", "parallel-tools", "reasoning-usage"]) {
    test(`${name}: same choices chunk for chunk, same usage numbers, [DONE] last`, async () => {
      const recorded = await Bun.file(new URL(`../../fixtures/chat/${name}.sse`, import.meta.url)).text();
      const original = chunksOf(recorded);
      const first = original[0]!;
      let state = chatFormat.stream.initial({ model: String(first.model), created: Number(first.created), includeUsage: true });
      let text = "";
      for (const event of decodeSseText(chatAdapter.stream, recorded)) {
        const [next, out] = chatFormat.stream.step(state, event);
        state = next;
        text += out;
      }
      const encoded = chunksOf(text);
      expect(encoded.map((c) => c.choices)).toEqual(original.map((c) => c.choices));
      expect(encoded.map((c) => c.id)).toEqual(original.map((c) => c.id));
      const usage = (c: Record<string, unknown> | undefined) => {
        const u = c?.usage as Record<string, Record<string, number> & number> | undefined;
        return u && [u.prompt_tokens, u.completion_tokens, u.total_tokens, u.prompt_tokens_details?.cached_tokens, u.completion_tokens_details?.reasoning_tokens];
      };
      expect(usage(encoded.at(-1))).toEqual(usage(original.at(-1)));
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    });
  }
});
