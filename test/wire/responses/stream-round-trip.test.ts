import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import type { EncodeContext } from "../../../src/wire/client-format.ts";
import { responseIdFor } from "../../../src/wire/responses/build-output-items.ts";
import { responsesStreamEncoder } from "../../../src/wire/responses/encode-stream.ts";
import { unpackForeignThinking, unpackResponsesReasoning } from "../../../src/wire/pack-reasoning.ts";
import { decodeAll, splitSse } from "./sse-helpers.ts";

const ctx: EncodeContext = { model: "fast", created: 1_700_000_000, includeUsage: false };
const usage = { inputTokens: 300, outputTokens: 90, cacheReadTokens: 200, cacheWriteTokens: 10, reasoningTokens: 30 };

function encode(events: readonly StreamEvent[]): string {
  let state = responsesStreamEncoder.initial(ctx);
  let out = "";
  for (const event of events) {
    const [next, text] = responsesStreamEncoder.step(state, event);
    state = next;
    out += text;
  }
  return out;
}

/**
 * What the decoder should give back: the id as shown to the client, the tier as model, a foreign
 * signature wrapped in the Responses reasoning it travelled in (unwrapped here for comparison),
 * and the stop reason as Responses can express it.
 */
function normalize(events: readonly StreamEvent[]): unknown[] {
  return events.map((event) => {
    if (event.type === "start") return { type: "start", id: responseIdFor(event.id), model: ctx.model };
    if (event.type === "signature_delta") {
      const wrapped = unpackResponsesReasoning(event.signature);
      const inner = unpackForeignThinking(wrapped?.encryptedContent);
      return inner === null || "redacted" in inner ? event : { ...event, signature: inner.signature };
    }
    if (event.type === "finish") {
      const unified = event.stopReason.unified;
      const back = unified === "stop_sequence" || unified === "pause_turn" ? "end_turn" : unified === "refusal" ? "content_filter" : unified;
      return { type: "finish", unified: back, usage: event.usage };
    }
    if (event.type === "error") return { type: "error", error: { type: event.error.type, message: event.error.message } };
    return event;
  });
}

const start: StreamEvent = { type: "start", id: "msg_01XYZ", model: "up" };
const cases: { name: string; events: StreamEvent[] }[] = [
  {
    name: "text",
    events: [
      start,
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "Hello " },
      { type: "text_delta", index: 0, text: "world" },
      { type: "block_stop", index: 0 },
      { type: "finish", stopReason: { unified: "end_turn", raw: "end_turn" }, usage },
    ],
  },
  {
    name: "thinking with signature, text, interleaved parallel tool calls",
    events: [
      start,
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "thinking_delta", index: 0, text: "Step one. " },
      { type: "thinking_delta", index: 0, text: "Step two." },
      { type: "signature_delta", index: 0, signature: "EqQBsig==" },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "text_delta", index: 1, text: "Calling." },
      { type: "block_stop", index: 1 },
      { type: "block_start", index: 2, block: { type: "tool_call", id: "toolu_a", name: "f" } },
      { type: "block_start", index: 3, block: { type: "tool_call", id: "toolu_b", name: "g" } },
      { type: "tool_args_delta", index: 2, fragment: '{"x":' },
      { type: "tool_args_delta", index: 3, fragment: "{}" },
      { type: "tool_args_delta", index: 2, fragment: "1}" },
      { type: "block_stop", index: 2 },
      { type: "block_stop", index: 3 },
      { type: "finish", stopReason: { unified: "tool_use", raw: "tool_use" }, usage },
    ],
  },
  ...(["max_tokens", "content_filter", "refusal", "stop_sequence", "pause_turn"] as const).map((unified) => ({
    name: `stop ${unified}`,
    events: [
      start,
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "x" },
      { type: "block_stop", index: 0 },
      { type: "finish", stopReason: { unified, raw: unified }, usage },
    ] as StreamEvent[],
  })),
  {
    name: "failure after the first byte",
    events: [
      start,
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "part" },
      { type: "error", error: { status: 529, type: "overloaded_error", message: "Overloaded" } },
    ],
  },
];

describe("Responses stream encoder → Responses stream decoder", () => {
  for (const c of cases) {
    test(c.name, () => {
      const decoded = decodeAll(splitSse(encode(c.events)));
      expect(normalize(decoded)).toEqual(normalize(c.events));
    });
  }

  test("the failure keeps its status when the type names one", () => {
    const decoded = decodeAll(splitSse(encode(cases[cases.length - 1]!.events)));
    expect(decoded[decoded.length - 1]).toEqual({ type: "error", error: { status: 529, type: "overloaded_error", message: "Overloaded" } });
  });

  test("nothing is written after finish or error", () => {
    let state = responsesStreamEncoder.initial(ctx);
    for (const event of cases[0]!.events) state = responsesStreamEncoder.step(state, event)[0];
    expect(responsesStreamEncoder.step(state, { type: "text_delta", index: 0, text: "late" })[1]).toBe("");
    expect(responsesStreamEncoder.step(state, { type: "error", error: { status: 500, type: "api_error", message: "x" } })[1]).toBe("");
  });

  test("every frame has an event line matching its type and a trailing blank line", () => {
    const text = encode(cases[1]!.events);
    expect(text.endsWith("\n\n")).toBe(true);
    for (const event of splitSse(text)) expect(JSON.parse(event.data).type).toBe(event.event);
  });

  test("redacted thinking is a reasoning item with no summary, its data packed in encrypted_content", () => {
    const text = encode([
      start,
      { type: "block_start", index: 0, block: { type: "redacted_thinking", data: "opaque" } },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "text_delta", index: 1, text: "ok" },
      { type: "block_stop", index: 1 },
      { type: "finish", stopReason: { unified: "end_turn", raw: null }, usage },
    ]);
    const added = splitSse(text).filter((event) => event.event === "response.output_item.added");
    expect(added.map((event) => JSON.parse(event.data).output_index)).toEqual([0, 1]);
    const done = splitSse(text).filter((event) => event.event === "response.output_item.done").map((event) => JSON.parse(event.data).item);
    expect(done[0]).toMatchObject({ type: "reasoning", summary: [] });
    expect(unpackForeignThinking(done[0].encrypted_content)).toEqual({ redacted: "opaque" });
  });
});
