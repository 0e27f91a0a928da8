import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import type { EncodeContext } from "../../../src/wire/client-format.ts";
import { unpackForeignThinking } from "../../../src/wire/pack-reasoning.ts";
import { responsesFormat } from "../../../src/wire/responses/client-side.ts";
import { rejectionOf } from "../../helpers/rejection-of.ts";

const ctx: EncodeContext = { model: "normal", created: 1_800_000_000, includeUsage: false };
const usage = { inputTokens: 120, outputTokens: 40, cacheReadTokens: 100, cacheWriteTokens: 5, reasoningTokens: 12 };

/** Thinking, text, then two tool calls whose argument fragments interleave. */
const toolStream: StreamEvent[] = [
  { type: "start", id: "msg_01abc", model: "claude-x" },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "Let me " },
  { type: "thinking_delta", index: 0, text: "think." },
  { type: "signature_delta", index: 0, signature: "sig-ABC" },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "Checking " },
  { type: "text_delta", index: 1, text: "both." },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_call", id: "toolu_1", name: "get_weather" } },
  { type: "block_start", index: 3, block: { type: "tool_call", id: "toolu_2", name: "get_time" } },
  { type: "tool_args_delta", index: 2, fragment: '{"city":' },
  { type: "tool_args_delta", index: 3, fragment: '{"zone":"UTC"}' },
  { type: "tool_args_delta", index: 2, fragment: '"Paris"}' },
  { type: "block_stop", index: 2 },
  { type: "block_stop", index: 3 },
  { type: "finish", stopReason: { unified: "tool_use", raw: "tool_use" }, usage },
];

const maxTokensStream: StreamEvent[] = [
  { type: "start", id: "chatcmpl-9", model: "gpt-x" },
  { type: "block_start", index: 0, block: { type: "text" } },
  { type: "text_delta", index: 0, text: "Cut sh" },
  { type: "block_stop", index: 0 },
  { type: "finish", stopReason: { unified: "max_tokens", raw: "length" }, usage: { ...usage, cacheWriteTokens: 0 } },
];

const failingStream: StreamEvent[] = [
  { type: "start", id: "msg_02", model: "claude-x" },
  { type: "block_start", index: 0, block: { type: "text" } },
  { type: "text_delta", index: 0, text: "Partial" },
  { type: "error", error: { status: 529, type: "overloaded_error", message: "upstream overloaded" } },
];

const nonStream: CanonicalResponse = {
  id: "msg_03",
  model: "claude-x",
  content: [
    { type: "thinking", text: "Plan.", signature: "sig-XYZ" },
    { type: "redacted_thinking", data: "opaque" },
    { type: "text", text: "Here you go." },
    { type: "tool_call", id: "toolu_9", name: "get_weather", arguments: '{"city":"Oslo"}' },
  ],
  stopReason: { unified: "tool_use", raw: "tool_use" },
  usage,
};

function encodeStream(events: readonly StreamEvent[]): string {
  let state = responsesFormat.stream.initial(ctx);
  let out = "";
  for (const event of events) {
    const [next, text] = responsesFormat.stream.step(state, event);
    state = next;
    out += text;
  }
  return out;
}

const streams: Record<string, StreamEvent[]> = { tools: toolStream, max: maxTokensStream, fail: failingStream };

describe("Responses encoders read by the official openai SDK", () => {
  let server: ReturnType<typeof Bun.serve>;
  let client: OpenAI;
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = (await request.json()) as { stream?: boolean; input: string };
        if (body.stream !== true) return Response.json(responsesFormat.encodeResponse(nonStream, ctx));
        return new Response(encodeStream(streams[body.input] ?? []), { headers: { "content-type": "text/event-stream" } });
      },
    });
    client = new OpenAI({ baseURL: `http://127.0.0.1:${server.port}/v1`, apiKey: "x", maxRetries: 0 });
  }, 30_000);
  afterAll(async () => {
    await server.stop(true);
  }, 30_000);

  test("responses.stream().finalResponse(): thinking, text, parallel tool calls, usage", async () => {
    const deltas: string[] = [];
    const stream = client.responses.stream({ model: "normal", input: "tools" });
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(deltas).toEqual(["Checking ", "both."]);
    expect(final.status).toBe("completed");
    expect(final.model).toBe("normal");
    expect(final.output_text).toBe("Checking both.");
    expect(final.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call", "function_call"]);
    const reasoning = final.output[0];
    if (reasoning?.type !== "reasoning") throw new Error("expected reasoning first");
    expect(reasoning.summary).toEqual([{ type: "summary_text", text: "Let me think." }]);
    expect(unpackForeignThinking(reasoning.encrypted_content ?? undefined)).toEqual({ text: "Let me think.", signature: "sig-ABC" });
    const calls = final.output.filter((item) => item.type === "function_call");
    expect(calls.map((call) => [call.call_id, call.name, JSON.parse(call.arguments)])).toEqual([
      ["toolu_1", "get_weather", { city: "Paris" }],
      ["toolu_2", "get_time", { zone: "UTC" }],
    ]);
    expect(final.usage).toMatchObject({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 100 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 160,
    });
  });

  test("raw stream: sequence numbers count from 0 and the last event is response.completed", async () => {
    const stream = await client.responses.create({ model: "normal", input: "tools", stream: true });
    const seen: { type: string; sequence_number: number }[] = [];
    for await (const event of stream) seen.push({ type: event.type, sequence_number: event.sequence_number });
    expect(seen.map((event) => event.sequence_number)).toEqual(seen.map((_, i) => i));
    expect(seen[0]?.type).toBe("response.created");
    expect(seen[1]?.type).toBe("response.in_progress");
    expect(seen[seen.length - 1]?.type).toBe("response.completed");
  });

  test("max_tokens → response.incomplete with incomplete_details", async () => {
    const final = await client.responses.stream({ model: "normal", input: "max" }).finalResponse();
    expect(final.status).toBe("incomplete");
    expect(final.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(final.output_text).toBe("Cut sh");
  });

  test("an in-stream failure makes the SDK throw instead of returning a clean result", async () => {
    const error = await rejectionOf(client.responses.stream({ model: "normal", input: "fail" }).finalResponse());
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toContain("upstream overloaded");
  });

  test("responses.create (non-stream)", async () => {
    const response = await client.responses.create({ model: "normal", input: "hello" });
    expect(response.status).toBe("completed");
    expect(response.model).toBe("normal");
    expect(response.id).toBe("resp_msg_03");
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "reasoning", "message", "function_call"]);
    expect(response.output_text).toBe("Here you go.");
    const call = response.output[3];
    if (call?.type !== "function_call") throw new Error("expected a function call");
    expect(JSON.parse(call.arguments)).toEqual({ city: "Oslo" });
    expect(call.call_id).toBe("toolu_9");
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(100);
  });
});
