import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../src/canonical/gateway-error.ts";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import { decodeMessagesResponse } from "../../../src/wire/messages/decode-response.ts";

const message = (over: Record<string, unknown>) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-x",
  content: [{ type: "text", text: "hi", citations: null }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 3 },
  ...over,
});

type Case = [string, Record<string, unknown>, Partial<CanonicalResponse>, string[]?];

const cases: Case[] = [
  ["text", message({}), { id: "msg_1", model: "claude-x", content: [{ type: "text", text: "hi" }], stopReason: { unified: "end_turn", raw: "end_turn" } }],
  [
    "thinking with signature, redacted thinking, parallel tool calls",
    message({
      content: [
        { type: "thinking", thinking: "plan", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "tool_use", id: "toolu_1", name: "a", input: { x: 1 } },
        { type: "tool_use", id: "toolu_2", name: "b", input: {} },
      ],
      stop_reason: "tool_use",
    }),
    {
      content: [
        { type: "thinking", text: "plan", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "tool_call", id: "toolu_1", name: "a", arguments: '{"x":1}' },
        { type: "tool_call", id: "toolu_2", name: "b", arguments: "{}" },
      ],
      stopReason: { unified: "tool_use", raw: "tool_use" },
    },
  ],
  ["stop sequence", message({ stop_reason: "stop_sequence", stop_sequence: "END" }), { stopReason: { unified: "stop_sequence", raw: "stop_sequence", stopSequence: "END" } }],
  ["max tokens", message({ stop_reason: "max_tokens" }), { stopReason: { unified: "max_tokens", raw: "max_tokens" } }],
  ["refusal", message({ stop_reason: "refusal", stop_details: { type: "refusal", category: "cyber" } }), { stopReason: { unified: "refusal", raw: "refusal" } }],
  ["pause turn", message({ stop_reason: "pause_turn" }), { stopReason: { unified: "pause_turn", raw: "pause_turn" } }],
  ["context window", message({ stop_reason: "model_context_window_exceeded" }), { stopReason: { unified: "max_tokens", raw: "model_context_window_exceeded" } }],
  [
    "usage with cache reads, writes and thinking tokens",
    message({ usage: { input_tokens: 4, cache_read_input_tokens: 300, cache_creation_input_tokens: 50, output_tokens: 66, output_tokens_details: { thinking_tokens: 32 } } }),
    { usage: { inputTokens: 354, outputTokens: 66, cacheReadTokens: 300, cacheWriteTokens: 50, reasoningTokens: 32 } },
  ],
  [
    "server tool blocks are dropped with a warning",
    message({ content: [{ type: "server_tool_use", id: "s", name: "web_search", input: {} }, { type: "text", text: "x" }] }),
    { content: [{ type: "text", text: "x" }] },
    ["answer content dropped (no counterpart in other formats): server_tool_use"],
  ],
];

describe("decodeMessagesResponse", () => {
  test.each(cases)("%s", (_name, body, expected, warnings = []) => {
    const { value, warnings: got } = decodeMessagesResponse(body);
    expect(value).toMatchObject(expected);
    expect(got).toEqual(warnings);
  });

  const invalid: [string, unknown][] = [
    ["not an object", "oops"],
    ["an error body", { type: "error", error: { type: "api_error", message: "x" } }],
    ["content missing", message({ content: undefined })],
    ["text block without text", message({ content: [{ type: "text" }] })],
    ["tool_use without id", message({ content: [{ type: "tool_use", name: "a", input: {} }] })],
  ];
  test.each(invalid)("502 for %s", (_name, body) => {
    let caught: unknown;
    try {
      decodeMessagesResponse(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).status).toBe(502);
    expect((caught as GatewayError).type).toBe("upstream_error");
  });
});
