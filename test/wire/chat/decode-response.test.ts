import { describe, expect, test } from "bun:test";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import { GatewayError } from "../../../src/canonical/gateway-error.ts";
import { decodeChatResponse } from "../../../src/wire/chat/decode-response.ts";

const usage = {
  prompt_tokens: 200,
  completion_tokens: 30,
  total_tokens: 230,
  prompt_tokens_details: { cached_tokens: 150, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 8 },
};
const body = (message: Record<string, unknown>, finish: string | null) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-up",
  choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, finish_reason: finish }],
  usage,
});

describe("decodeChatResponse", () => {
  const table: [string, unknown, Partial<CanonicalResponse>][] = [
    [
      "text with cached usage",
      body({ content: "Hello" }, "stop"),
      {
        id: "chatcmpl-1",
        model: "gpt-up",
        content: [{ type: "text", text: "Hello" }],
        stopReason: { unified: "end_turn", raw: "stop" },
        usage: { inputTokens: 200, outputTokens: 30, cacheReadTokens: 150, cacheWriteTokens: 0, reasoningTokens: 8 },
      },
    ],
    [
      "parallel tool calls with null content and reasoning_content",
      body(
        {
          content: null,
          reasoning_content: "thinking...",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "a", arguments: '{"x":1}' } },
            { id: "call_2", type: "function", function: { name: "b", arguments: "{}" } },
          ],
        },
        "tool_calls",
      ),
      {
        content: [
          { type: "thinking", text: "thinking..." },
          { type: "tool_call", id: "call_1", name: "a", arguments: '{"x":1}' },
          { type: "tool_call", id: "call_2", name: "b", arguments: "{}" },
        ],
        stopReason: { unified: "tool_use", raw: "tool_calls" },
      },
    ],
    ["length", body({ content: "cut" }, "length"), { stopReason: { unified: "max_tokens", raw: "length" } }],
    ["content_filter", body({ content: "" }, "content_filter"), { content: [], stopReason: { unified: "content_filter", raw: "content_filter" } }],
    ["refusal", body({ content: null, refusal: "I can't help with that." }, "stop"), { content: [{ type: "text", text: "I can't help with that." }], stopReason: { unified: "refusal", raw: "stop" } }],
    ["content as text parts (compatible servers)", body({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }, "stop"), { content: [{ type: "text", text: "ab" }] }],
  ];
  for (const [name, raw, expected] of table) test(name, () => expect(decodeChatResponse(raw).value).toMatchObject(expected));

  const invalid: [string, unknown][] = [
    ["not an object", "nope"],
    ["no choices", { id: "x", choices: [] }],
    ["no message", { choices: [{ index: 0 }] }],
    ["error body", { error: { message: "x" } }],
    ["tool call without a name", body({ tool_calls: [{ id: "c", function: {} }] }, "tool_calls")],
  ];
  for (const [name, raw] of invalid) {
    test(`invalid: ${name} → 502 upstream_error`, () => {
      let error: unknown;
      try {
        decodeChatResponse(raw);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(502);
      expect((error as GatewayError).type).toBe("upstream_error");
    });
  }
});
