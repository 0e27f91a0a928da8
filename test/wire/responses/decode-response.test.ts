import { describe, expect, test } from "bun:test";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import { GatewayError } from "../../../src/canonical/gateway-error.ts";
import { packResponsesReasoning } from "../../../src/wire/pack-reasoning.ts";
import { decodeResponsesResponse } from "../../../src/wire/responses/decode-response.ts";

const usage = { input_tokens: 50, input_tokens_details: { cached_tokens: 30 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 8 }, total_tokens: 70 };
const body = (over: Record<string, unknown>) => ({ id: "resp_1", object: "response", model: "gpt-up", status: "completed", output: [], usage, ...over });
const message = (text: string) => ({ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });

const cases: { name: string; body: unknown; expect: Partial<CanonicalResponse>; warnings?: number }[] = [
  {
    name: "text, usage with cached and reasoning tokens",
    body: body({ output: [message("Hello")] }),
    expect: {
      id: "resp_1",
      model: "gpt-up",
      content: [{ type: "text", text: "Hello" }],
      stopReason: { unified: "end_turn", raw: "completed" },
      usage: { inputTokens: 50, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 0, reasoningTokens: 8 },
    },
  },
  {
    name: "reasoning with summaries and encrypted content, parallel function calls → tool_use",
    body: body({
      output: [
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "one" }, { type: "summary_text", text: "two" }], encrypted_content: "enc" },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: '{"a":1}', status: "completed" },
        { type: "function_call", id: "fc_2", call_id: "call_2", name: "g", arguments: "{}", status: "completed" },
      ],
    }),
    expect: {
      content: [
        { type: "thinking", text: "one\n\ntwo", signature: packResponsesReasoning({ id: "rs_1", encryptedContent: "enc" }) },
        { type: "tool_call", id: "call_1", name: "f", arguments: '{"a":1}' },
        { type: "tool_call", id: "call_2", name: "g", arguments: "{}" },
      ],
      stopReason: { unified: "tool_use", raw: "completed" },
    },
  },
  {
    name: "incomplete: max_output_tokens",
    body: body({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output: [message("Cut")] }),
    expect: { stopReason: { unified: "max_tokens", raw: "incomplete:max_output_tokens" } },
  },
  {
    name: "incomplete: content_filter",
    body: body({ status: "incomplete", incomplete_details: { reason: "content_filter" } }),
    expect: { stopReason: { unified: "content_filter", raw: "incomplete:content_filter" } },
  },
  {
    name: "refusal part → refusal",
    body: body({ output: [{ type: "message", id: "m", role: "assistant", content: [{ type: "refusal", refusal: "I can't help." }] }] }),
    expect: { content: [{ type: "text", text: "I can't help." }], stopReason: { unified: "refusal", raw: "completed" } },
  },
  {
    name: "builtin tool items are reported and dropped",
    body: body({ output: [{ type: "web_search_call", id: "ws_1", status: "completed" }, message("Found")] }),
    expect: { content: [{ type: "text", text: "Found" }] },
    warnings: 1,
  },
  {
    name: "missing usage reads as zero",
    body: body({ usage: null }),
    expect: { usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
  },
];

describe("decodeResponsesResponse", () => {
  for (const c of cases) {
    test(c.name, () => {
      const { value, warnings } = decodeResponsesResponse(c.body);
      expect(value).toMatchObject(c.expect);
      expect(warnings).toHaveLength(c.warnings ?? 0);
    });
  }

  const invalid: { name: string; body: unknown; status: number; type: string }[] = [
    { name: "not an object", body: "nope", status: 502, type: "upstream_error" },
    { name: "no output", body: { id: "resp_1", status: "completed" }, status: 502, type: "upstream_error" },
    { name: "failed", body: body({ status: "failed", error: { code: "server_error", message: "bad" } }), status: 502, type: "upstream_error" },
    { name: "failed by rate limit", body: body({ status: "failed", error: { code: "rate_limit_exceeded", message: "slow" } }), status: 429, type: "rate_limit_error" },
    { name: "still in progress", body: body({ status: "in_progress" }), status: 502, type: "upstream_error" },
  ];
  for (const c of invalid) {
    test(`error: ${c.name}`, () => {
      let caught: unknown;
      try {
        decodeResponsesResponse(c.body);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      expect(caught).toMatchObject({ status: c.status, type: c.type });
    });
  }
});
