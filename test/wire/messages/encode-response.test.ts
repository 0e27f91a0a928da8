import { describe, expect, test } from "bun:test";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import type { StopReason } from "../../../src/canonical/stop-reason.ts";
import { encodeMessagesResponse } from "../../../src/wire/messages/encode-response.ts";
import { decodeMessagesResponse } from "../../../src/wire/messages/decode-response.ts";
import type { MessagesStopReason } from "../../../src/wire/messages/shapes.ts";

const CTX = { model: "smart", created: 1_700_000_000, includeUsage: false };
const USAGE = { inputTokens: 1200, outputTokens: 95, cacheReadTokens: 1000, cacheWriteTokens: 150, reasoningTokens: 30 };

const RESPONSE: CanonicalResponse = {
  id: "msg_9",
  model: "sim-smart",
  content: [
    { type: "thinking", text: "Plan.", signature: "sig" },
    { type: "redacted_thinking", data: "opaque" },
    { type: "text", text: "Calling." },
    { type: "tool_call", id: "toolu_a", name: "get_weather", arguments: '{"city":"Paris"}' },
    { type: "tool_call", id: "toolu_b", name: "get_time", arguments: "" },
  ],
  stopReason: { unified: "tool_use", raw: "tool_calls" },
  usage: USAGE,
};

describe("encodeMessagesResponse", () => {
  test("a full Message body with the tier as model and Messages usage semantics", () => {
    expect(encodeMessagesResponse(RESPONSE, CTX)).toEqual({
      id: "msg_9",
      type: "message",
      role: "assistant",
      model: "smart",
      content: [
        { type: "thinking", thinking: "Plan.", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "Calling." },
        { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
        { type: "tool_use", id: "toolu_b", name: "get_time", input: {} },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      stop_details: null,
      usage: {
        input_tokens: 50,
        cache_creation_input_tokens: 150,
        cache_read_input_tokens: 1000,
        cache_creation: { ephemeral_5m_input_tokens: 150, ephemeral_1h_input_tokens: 0 },
        output_tokens: 95,
        output_tokens_details: { thinking_tokens: 30 },
        service_tier: "standard",
      },
    });
  });

  const stops: [StopReason, MessagesStopReason, string | null, null][] = [
    [{ unified: "end_turn", raw: "stop" }, "end_turn", null, null],
    [{ unified: "max_tokens", raw: "length" }, "max_tokens", null, null],
    [{ unified: "stop_sequence", raw: "stop_sequence", stopSequence: "END" }, "stop_sequence", "END", null],
    [{ unified: "tool_use", raw: "tool_calls" }, "tool_use", null, null],
    [{ unified: "refusal", raw: "refusal" }, "refusal", null, null],
    [{ unified: "pause_turn", raw: "pause_turn" }, "pause_turn", null, null],
    [{ unified: "content_filter", raw: "content_filter" }, "refusal", null, null],
  ];
  test.each(stops)("stop case %#: → %s", (stopReason, reason, sequence, details) => {
    const body = encodeMessagesResponse({ ...RESPONSE, stopReason }, CTX);
    expect(body.stop_reason).toBe(reason);
    expect(body.stop_sequence).toBe(sequence);
    expect(body.stop_details).toEqual(details);
  });

  test("arguments cut off mid-JSON become an empty input object, as the type requires", () => {
    const body = encodeMessagesResponse({ ...RESPONSE, content: [{ type: "tool_call", id: "t", name: "n", arguments: '{"a":' }] }, CTX);
    expect(body.content).toEqual([{ type: "tool_use", id: "t", name: "n", input: {} }]);
  });

  test("unsigned thinking (from an API without signatures) gets an empty signature", () => {
    const body = encodeMessagesResponse({ ...RESPONSE, content: [{ type: "thinking", text: "hm" }] }, CTX);
    expect(body.content).toEqual([{ type: "thinking", thinking: "hm", signature: "" }]);
  });

  test("round trip through the upstream decoder keeps content, stop and usage", () => {
    const native: CanonicalResponse = { ...RESPONSE, model: "smart", stopReason: { unified: "tool_use", raw: "tool_use" } };
    const decoded = decodeMessagesResponse(encodeMessagesResponse(native, CTX)).value;
    expect(decoded).toEqual({ ...native, content: native.content.map((p) => (p.type === "tool_call" && p.arguments === "" ? { ...p, arguments: "{}" } : p)) });
  });
});
