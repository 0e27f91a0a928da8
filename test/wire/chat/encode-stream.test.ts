import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { chatStreamEncoder } from "../../../src/wire/chat/encode-stream.ts";
import type { EncodeContext } from "../../../src/wire/client-format.ts";

const usage = { inputTokens: 50, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 0, reasoningTokens: 5 };

function encode(events: readonly StreamEvent[], includeUsage: boolean): string {
  const ctx: EncodeContext = { model: "fast", created: 1_700_000_000, includeUsage };
  let state = chatStreamEncoder.initial(ctx);
  let out = "";
  for (const event of events) {
    const [next, text] = chatStreamEncoder.step(state, event);
    state = next;
    out += text;
  }
  return out;
}

/** The data payloads of a Chat SSE body. */
const payloads = (text: string): unknown[] =>
  text
    .split("\n\n")
    .filter((f) => f !== "")
    .map((f) => {
      expect(f.startsWith("data: ")).toBe(true);
      const data = f.slice(6);
      return data === "[DONE]" ? "[DONE]" : JSON.parse(data);
    });

const deltas = (text: string) =>
  payloads(text).map((p) => (typeof p === "string" ? p : (p as { choices: { delta: unknown; finish_reason: unknown }[] }).choices[0] ?? p));

interface ChunkJson {
  id: unknown;
  object: unknown;
  created: unknown;
  model: unknown;
  system_fingerprint: unknown;
  choices: { index: unknown; delta: unknown; logprobs: unknown; finish_reason: unknown }[];
  usage?: unknown;
}

/** A parsed chunk rebuilt with the API's key order, so its JSON is what the encoder must have written. */
const inApiOrder = (p: ChunkJson): ChunkJson => ({
  id: p.id,
  object: p.object,
  created: p.created,
  model: p.model,
  system_fingerprint: p.system_fingerprint,
  choices: p.choices.map((c) => ({ index: c.index, delta: c.delta, logprobs: c.logprobs, finish_reason: c.finish_reason })),
  ...("usage" in p ? { usage: p.usage } : {}),
});

const toolStream: StreamEvent[] = [
  { type: "start", id: "msg_9", model: "sim-fast" },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "hmm" },
  { type: "signature_delta", index: 0, signature: "sig" },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "Calling." },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_call", id: "call_a", name: "get_weather" } },
  { type: "block_start", index: 3, block: { type: "tool_call", id: "call_b", name: "get_time" } },
  { type: "tool_args_delta", index: 2, fragment: '{"city":' },
  { type: "tool_args_delta", index: 3, fragment: "{}" },
  { type: "tool_args_delta", index: 2, fragment: '"Paris"}' },
  { type: "block_stop", index: 2 },
  { type: "block_stop", index: 3 },
  { type: "finish", stopReason: { unified: "tool_use", raw: "tool_use" }, usage },
];

describe("chatStreamEncoder", () => {
  test.each([
    ["with include_usage", true, "msg_9", "chatcmpl-msg_9"],
    ["without include_usage", false, "chatcmpl-9", "chatcmpl-9"],
    // No API's ids have such characters: they are dropped, and the text is escaped.
    ["an id and text that need escaping", true, 'id "quoted" \\ \u2028', "chatcmpl-idquoted"],
  ])("every chunk is the JSON of its object, key order and escaping included: %s", (_name, includeUsage, id, shownId) => {
    const events: StreamEvent[] = [
      { type: "start", id, model: "sim-fast" },
      ...toolStream.slice(1, -1),
      { type: "text_delta", index: 1, text: 'quote " backslash \\ newline \n emoji \u{1F600} nul \u0000' },
      toolStream.at(-1)!,
    ];
    const frames = encode(events, includeUsage).split("\n\n").filter((f) => f !== "" && f !== "data: [DONE]");
    expect(frames.length).toBeGreaterThan(8);
    for (const f of frames) expect(f).toBe(`data: ${JSON.stringify(inApiOrder(JSON.parse(f.slice(6))))}`);
    expect(frames.every((f) => JSON.parse(f.slice(6)).id === shownId)).toBe(true);
  });

  test("role chunk, reasoning, text, interleaved tool-call fragments by tool index, finish, usage chunk, [DONE]", () => {
    const text = encode(toolStream, true);
    expect(deltas(text)).toEqual([
      { index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null },
      { index: 0, delta: { reasoning_content: "hmm" }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: "Calling." }, logprobs: null, finish_reason: null },
      { index: 0, delta: { tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }] }, logprobs: null, finish_reason: null },
      { index: 0, delta: { tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: "" } }] }, logprobs: null, finish_reason: null },
      { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, logprobs: null, finish_reason: null },
      { index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: "{}" } }] }, logprobs: null, finish_reason: null },
      { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, logprobs: null, finish_reason: null },
      { index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" },
      expect.objectContaining({ choices: [], usage: expect.objectContaining({ prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 }) }),
      "[DONE]",
    ]);
    const chunks = payloads(text).filter((p): p is Record<string, unknown> => typeof p === "object");
    // The Messages upstream's id, shown in the Chat form.
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(["chatcmpl-msg_9"]));
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "fast" && c.created === 1_700_000_000)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  test("without include_usage: no usage field and no usage chunk", () => {
    const text = encode(toolStream, false);
    const chunks = payloads(text);
    expect(chunks.at(-1)).toBe("[DONE]");
    expect(chunks.slice(0, -1).every((c) => !("usage" in (c as object)))).toBe(true);
    expect((chunks.at(-2) as { choices: { finish_reason: string }[] }).choices[0]?.finish_reason).toBe("tool_calls");
  });

  test("an error after content becomes the error chunk, with no finish and no [DONE]; later events write nothing", () => {
    const text = encode(
      [
        { type: "start", id: "x", model: "m" },
        { type: "block_start", index: 0, block: { type: "text" } },
        { type: "text_delta", index: 0, text: "partial" },
        { type: "error", error: { status: 529, type: "overloaded_error", message: "upstream overloaded" } },
        { type: "finish", stopReason: { unified: "end_turn", raw: null }, usage },
      ],
      true,
    );
    const all = payloads(text);
    expect(all.at(-1)).toEqual({ error: { message: "upstream overloaded", type: "overloaded_error", param: null, code: "overloaded_error" } });
    expect(text).not.toContain("[DONE]");
    expect(text).not.toContain("finish_reason\":\"stop");
  });

  test("an unknown error type is rendered as api_error", () => {
    const text = encode([{ type: "error", error: { status: 500, type: "weird", message: "boom" } }], false);
    expect(payloads(text)).toEqual([{ error: { message: "boom", type: "api_error", param: null, code: "api_error" } }]);
  });

  test("content before start still gets the role chunk first", () => {
    const list = deltas(encode([{ type: "block_start", index: 0, block: { type: "text" } }, { type: "text_delta", index: 0, text: "hi" }], false));
    expect(list.map((c) => (c as { delta: unknown }).delta)).toEqual([{ role: "assistant", content: "", refusal: null }, { content: "hi" }]);
  });
});
