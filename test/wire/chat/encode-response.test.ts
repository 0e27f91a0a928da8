import { describe, expect, test } from "bun:test";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import type { UnifiedStopReason } from "../../../src/canonical/stop-reason.ts";
import type { EncodeContext } from "../../../src/wire/client-format.ts";
import { encodeChatResponse } from "../../../src/wire/chat/encode-response.ts";
import type { ChatFinishReason } from "../../../src/wire/chat/shapes.ts";

const ctx: EncodeContext = { model: "normal", created: 1_700_000_000, includeUsage: false };
const usage = { inputTokens: 100, outputTokens: 40, cacheReadTokens: 60, cacheWriteTokens: 0, reasoningTokens: 10 };
const base: CanonicalResponse = { id: "msg_1", model: "sim-normal", content: [], stopReason: { unified: "end_turn", raw: "end_turn" }, usage };

describe("encodeChatResponse", () => {
  test("text answer: tier as model, usage in OpenAI semantics", () => {
    const body = encodeChatResponse({ ...base, content: [{ type: "text", text: "Hello" }, { type: "text", text: " there" }] }, ctx);
    expect(body).toEqual({
      id: "chatcmpl-msg_1",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "normal",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello there", refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 40,
        total_tokens: 140,
        prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 10 },
      },
    });
  });

  test("thinking as reasoning_content, parallel tool calls, null content, redacted thinking left out", () => {
    const body = encodeChatResponse(
      {
        ...base,
        stopReason: { unified: "tool_use", raw: "tool_use" },
        content: [
          { type: "thinking", text: "Need two tools.", signature: "sig" },
          { type: "redacted_thinking", data: "opaque" },
          { type: "tool_call", id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "tool_call", id: "toolu_2", name: "get_time", arguments: "" },
        ],
      },
      ctx,
    );
    const choice = body.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message).toEqual({
      role: "assistant",
      content: null,
      refusal: null,
      annotations: [],
      reasoning_content: "Need two tools.",
      tool_calls: [
        { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "toolu_2", type: "function", function: { name: "get_time", arguments: "{}" } },
      ],
    });
  });

  const stops: [UnifiedStopReason, ChatFinishReason][] = [
    ["max_tokens", "length"],
    ["stop_sequence", "stop"],
    ["refusal", "content_filter"],
    ["pause_turn", "stop"],
    ["content_filter", "content_filter"],
  ];
  for (const [unified, finish] of stops) {
    test(`stop ${unified} → finish_reason ${finish}`, () => {
      const body = encodeChatResponse({ ...base, content: [{ type: "text", text: "x" }], stopReason: { unified, raw: null } }, ctx);
      expect(body.choices[0]!.finish_reason).toBe(finish);
    });
  }
});
