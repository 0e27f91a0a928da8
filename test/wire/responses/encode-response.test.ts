import { describe, expect, test } from "bun:test";
import type { OutputPart } from "../../../src/canonical/content-part.ts";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import type { StopReason } from "../../../src/canonical/stop-reason.ts";
import { encodeResponsesResponse } from "../../../src/wire/responses/encode-response.ts";
import type { ResponsesResponse } from "../../../src/wire/responses/shapes.ts";
import { packResponsesReasoning, unpackForeignThinking } from "../../../src/wire/pack-reasoning.ts";

const ctx = { model: "smart", created: 1_700_000_000, includeUsage: false };
const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 4, cacheWriteTokens: 2, reasoningTokens: 1 };
const response = (content: OutputPart[], stopReason: StopReason = { unified: "end_turn", raw: "end_turn" }, id = "msg_1"): CanonicalResponse => ({
  id,
  model: "claude-up",
  content,
  stopReason,
  usage,
});

describe("encodeResponsesResponse", () => {
  test("every required Response field, the tier as model, usage in OpenAI terms", () => {
    const body = encodeResponsesResponse(response([{ type: "text", text: "Hi" }]), ctx);
    for (const key of ["id", "object", "created_at", "error", "incomplete_details", "instructions", "model", "tools", "output", "parallel_tool_calls", "metadata", "tool_choice", "temperature", "top_p"]) {
      expect(body).toHaveProperty(key);
    }
    expect(body).toMatchObject({
      id: "resp_msg_1",
      object: "response",
      created_at: 1_700_000_000,
      model: "smart",
      status: "completed",
      output: [{ type: "message", id: "msg_msg_1_0", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Hi", annotations: [] }] }],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 4, cache_write_tokens: 2 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 1 },
        total_tokens: 15,
      },
    });
  });

  test("a resp_ id passes unchanged", () => {
    expect(encodeResponsesResponse(response([], undefined, "resp_abc"), ctx).id).toBe("resp_abc");
  });

  test("items in order: foreign thinking packed rlm1, own reasoning restored, redacted packed rlm1, calls with call_id", () => {
    const body = encodeResponsesResponse(
      response([
        { type: "thinking", text: "Plan", signature: "anthropic-sig" },
        { type: "thinking", text: "", signature: packResponsesReasoning({ id: "rs_up", encryptedContent: "enc" }) },
        { type: "redacted_thinking", data: "x" },
        { type: "text", text: "Calling" },
        { type: "tool_call", id: "toolu_1", name: "f", arguments: '{"a":1}' },
        { type: "tool_call", id: "toolu_2", name: "g", arguments: "{}" },
      ]),
      ctx,
    );
    const output: readonly Record<string, unknown>[] = body.output;
    expect(output.map((item) => item.type)).toEqual(["reasoning", "reasoning", "reasoning", "message", "function_call", "function_call"]);
    expect(output[0]).toMatchObject({ summary: [{ type: "summary_text", text: "Plan" }] });
    expect(unpackForeignThinking(output[0]!.encrypted_content as string)).toEqual({ text: "Plan", signature: "anthropic-sig" });
    expect(output[1]).toEqual({ type: "reasoning", id: "rs_up", summary: [], encrypted_content: "enc" });
    expect(output[2]).toMatchObject({ type: "reasoning", summary: [] });
    expect(unpackForeignThinking(output[2]!.encrypted_content as string)).toEqual({ redacted: "x" });
    expect(output[4]).toMatchObject({ type: "function_call", call_id: "toolu_1", name: "f", arguments: '{"a":1}', status: "completed" });
    expect(new Set(output.map((item) => item.id)).size).toBe(6);
  });

  const stops: { stop: StopReason; status: ResponsesResponse["status"]; incomplete: ResponsesResponse["incomplete_details"] }[] = [
    { stop: { unified: "end_turn", raw: "end_turn" }, status: "completed", incomplete: null },
    { stop: { unified: "stop_sequence", raw: "stop_sequence", stopSequence: "END" }, status: "completed", incomplete: null },
    { stop: { unified: "tool_use", raw: "tool_calls" }, status: "completed", incomplete: null },
    { stop: { unified: "pause_turn", raw: "pause_turn" }, status: "completed", incomplete: null },
    { stop: { unified: "max_tokens", raw: "length" }, status: "incomplete", incomplete: { reason: "max_output_tokens" } },
    { stop: { unified: "refusal", raw: "refusal" }, status: "incomplete", incomplete: { reason: "content_filter" } },
    { stop: { unified: "content_filter", raw: "content_filter" }, status: "incomplete", incomplete: { reason: "content_filter" } },
  ];
  for (const c of stops) {
    test(`stop ${c.stop.unified} → ${c.status}`, () => {
      const body = encodeResponsesResponse(response([{ type: "text", text: "x" }], c.stop), ctx);
      expect(body.status).toBe(c.status);
      expect(body.incomplete_details).toEqual(c.incomplete);
      expect(body.completed_at).toBe(c.status === "completed" ? ctx.created : undefined);
    });
  }
});
