import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import type { EncodeContext } from "../../../src/wire/client-format.ts";
import { messagesStreamEncoder } from "../../../src/wire/messages/encode-stream.ts";
import { messagesStreamDecoder } from "../../../src/wire/messages/decode-stream.ts";
import { dataTypes, decodeAll, splitSse } from "./sse-helpers.ts";
import { FINAL_USAGE, START_USAGE, TOOL_STREAM } from "./stream-events.ts";

const CTX: EncodeContext = { model: "normal", created: 1_700_000_000, includeUsage: false };

/** Runs events through the encoder; returns each step's text. */
function encodeSteps(events: readonly StreamEvent[], ctx: EncodeContext = CTX): string[] {
  let state = messagesStreamEncoder.initial(ctx);
  return events.map((event) => {
    const [next, text] = messagesStreamEncoder.step(state, event);
    state = next;
    return text;
  });
}
const encode = (events: readonly StreamEvent[]): string => encodeSteps(events).join("");
const datas = (text: string): Record<string, unknown>[] => splitSse(text).map((e) => JSON.parse(e.data) as Record<string, unknown>);

describe("messagesStreamEncoder", () => {
  test("event names, order and contiguous indices as the API streams them", () => {
    const text = encode(TOOL_STREAM);
    const events = splitSse(text);
    expect(events.map((e) => e.event)).toEqual(dataTypes(text));
    expect(dataTypes(text)).toEqual([
      "message_start",
      ...["content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop"],
      ...["content_block_start", "content_block_delta", "content_block_delta", "content_block_stop"],
      ...["content_block_start", "content_block_delta", "content_block_delta", "content_block_stop"],
      ...["content_block_start", "content_block_delta", "content_block_stop"],
      "message_delta",
      "message_stop",
    ]);
    const data = datas(text);
    expect(data[0]).toEqual({
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "normal",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: {
          input_tokens: 50,
          cache_creation_input_tokens: 150,
          cache_read_input_tokens: 1000,
          cache_creation: { ephemeral_5m_input_tokens: 150, ephemeral_1h_input_tokens: 0 },
          output_tokens: 1,
          service_tier: "standard",
        },
      },
    });
    expect(data[1]).toEqual({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } });
    expect(data[4]).toEqual({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2lnbmF0dXJl" } });
    expect(data[6]).toEqual({ type: "content_block_start", index: 1, content_block: { type: "text", text: "" } });
    expect(data[10]).toEqual({ type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_a", name: "get_weather", input: {} } });
    expect(data[11]).toEqual({ type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city":' } });
    expect(data.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null, stop_details: null },
      usage: { input_tokens: 50, cache_creation_input_tokens: 150, cache_read_input_tokens: 1000, output_tokens: 95, output_tokens_details: { thinking_tokens: 30 } },
    });
    expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
  });

  test("tool arguments are written as each fragment arrives, not held back", () => {
    const steps = encodeSteps(TOOL_STREAM);
    const fragmentStep = TOOL_STREAM.findIndex((e) => e.type === "tool_args_delta");
    expect(steps[fragmentStep]).toContain('"partial_json":"{\\"city\\":"');
  });

  test("interleaved blocks: a block that starts while another is open goes out after it, so no delta follows its block's stop", () => {
    const text = encode([
      { type: "start", id: "m", model: "x" },
      { type: "block_start", index: 0, block: { type: "tool_call", id: "c0", name: "a" } },
      { type: "tool_args_delta", index: 0, fragment: '{"x":' },
      { type: "block_start", index: 1, block: { type: "tool_call", id: "c1", name: "b" } },
      { type: "tool_args_delta", index: 1, fragment: '{"y":' },
      { type: "tool_args_delta", index: 0, fragment: "1}" },
      { type: "tool_args_delta", index: 1, fragment: "2}" },
      { type: "block_stop", index: 0 },
      { type: "block_stop", index: 1 },
      { type: "finish", stopReason: { unified: "tool_use", raw: "tool_calls" }, usage: FINAL_USAGE },
    ]);
    const data = datas(text);
    expect(data.map((d) => `${String(d.type)}:${String(d.index ?? "")}`)).toEqual([
      "message_start:",
      "content_block_start:0",
      "content_block_delta:0",
      "content_block_delta:0",
      "content_block_stop:0",
      "content_block_start:1",
      "content_block_delta:1",
      "content_block_delta:1",
      "content_block_stop:1",
      "message_delta:",
      "message_stop:",
    ]);
  });

  test("interleaved blocks still open at the finish go out whole, in start order", () => {
    const text = encode([
      { type: "start", id: "m", model: "x" },
      { type: "block_start", index: 0, block: { type: "tool_call", id: "c0", name: "a" } },
      { type: "block_start", index: 1, block: { type: "tool_call", id: "c1", name: "b" } },
      { type: "tool_args_delta", index: 1, fragment: "{}" },
      { type: "tool_args_delta", index: 0, fragment: "{}" },
      { type: "finish", stopReason: { unified: "tool_use", raw: "tool_calls" }, usage: FINAL_USAGE },
    ]);
    expect(datas(text).map((d) => `${String(d.type)}:${String(d.index ?? "")}`)).toEqual([
      "message_start:",
      "content_block_start:0",
      "content_block_delta:0",
      "content_block_stop:0",
      "content_block_start:1",
      "content_block_delta:1",
      "content_block_stop:1",
      "message_delta:",
      "message_stop:",
    ]);
  });

  test("blocks left open are stopped before message_delta", () => {
    const text = encode([
      { type: "start", id: "m", model: "x" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "hi" },
      { type: "finish", stopReason: { unified: "end_turn", raw: "stop" }, usage: FINAL_USAGE },
    ]);
    expect(dataTypes(text)).toEqual(["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
  });

  test("redacted thinking is complete at its start; a refusal has no details to give", () => {
    const data = datas(
      encode([
        { type: "start", id: "m", model: "x" },
        { type: "block_start", index: 0, block: { type: "redacted_thinking", data: "opaque" } },
        { type: "block_stop", index: 0 },
        { type: "finish", stopReason: { unified: "content_filter", raw: "content_filter" }, usage: FINAL_USAGE },
      ]),
    );
    expect(data[1]).toEqual({ type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "opaque" } });
    expect(data[3]?.delta).toEqual({ stop_reason: "refusal", stop_sequence: null, stop_details: null });
  });

  test("an error after the first byte is the format's error event and nothing follows; no message_stop", () => {
    const steps = encodeSteps([
      { type: "start", id: "m", model: "x" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "par" },
      { type: "error", error: { status: 529, type: "overloaded_error", message: "upstream overloaded" } },
      { type: "block_stop", index: 0 },
      { type: "finish", stopReason: { unified: "end_turn", raw: null }, usage: FINAL_USAGE },
    ]);
    expect(steps[3]).toBe('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"upstream overloaded"}}\n\n');
    expect(steps.slice(4)).toEqual(["", ""]);
    expect(steps.join("")).not.toContain("message_stop");
  });

  test("an unknown error type is rendered as api_error", () => {
    const [text] = encodeSteps([{ type: "error", error: { status: 500, type: "weird", message: "m" } }]);
    expect(JSON.parse(splitSse(text ?? "")[0]?.data ?? "{}")).toEqual({ type: "error", error: { type: "api_error", message: "m" } });
  });

  test("a stream without a start still opens with message_start", () => {
    const text = encode([{ type: "block_start", index: 0, block: { type: "text" } }]);
    expect(dataTypes(text)).toEqual(["message_start", "content_block_start"]);
  });

  test("round trip: encoder output through the Messages stream decoder gives the same events", () => {
    expect(decodeAll(messagesStreamDecoder, encode(TOOL_STREAM))).toEqual(TOOL_STREAM);
    const withSequence: StreamEvent[] = [
      { type: "start", id: "msg_2", model: "normal", usage: START_USAGE },
      { type: "block_start", index: 0, block: { type: "redacted_thinking", data: "opaque" } },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "text_delta", index: 1, text: "a b" },
      { type: "block_stop", index: 1 },
      { type: "finish", stopReason: { unified: "stop_sequence", raw: "stop_sequence", stopSequence: "END" }, usage: FINAL_USAGE },
    ];
    expect(decodeAll(messagesStreamDecoder, encode(withSequence))).toEqual(withSequence);
  });
});

test("a text delta carries any text, written as the API writes the event", () => {
  const text = 'quote " backslash \\ newline \n tab \t emoji \u{1F600} nul \u0000 separator \u2028';
  const frames = encodeSteps([
    { type: "start", id: "msg_1", model: "m" },
    { type: "block_start", index: 3, block: { type: "text" } },
    { type: "text_delta", index: 3, text },
  ]);
  expect(frames.at(-1)).toBe(`event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })}\n\n`);
});

describe("messagesStreamEncoder against recorded upstream streams", () => {
  const withoutPings = (text: string): string =>
    text
      .split("\n\n")
      .filter((block) => !block.startsWith("event: ping"))
      .join("\n\n");

  test.each(["text", "parallel-tools", "thinking", "cached-usage", "max-tokens"])("%s: decoded then re-encoded gives the recorded stream back (pings aside)", async (name) => {
    const recorded = await Bun.file(`${import.meta.dir}/../../fixtures/messages/${name}.sse`).text();
    const events = decodeAll(messagesStreamDecoder, recorded);
    const model = events[0]?.type === "start" ? events[0].model : "";
    expect(encodeSteps(events, { ...CTX, model }).join("")).toBe(withoutPings(recorded));
  });
});

test("every kind of delta, on blocks past the first 64 as on the first, is the event JSON.stringify writes", () => {
  const events: StreamEvent[] = [{ type: "start", id: "msg_1", model: "m" }];
  const expected: string[] = [];
  const kinds = [
    { block: { type: "text" }, delta: (index: number) => ({ type: "text_delta", index, text: `plain ${index}` }), wire: (i: number) => ({ type: "text_delta", text: `plain ${i}` }) },
    { block: { type: "thinking" }, delta: (index: number) => ({ type: "thinking_delta", index, text: `"quoted" ${index}` }), wire: (i: number) => ({ type: "thinking_delta", thinking: `"quoted" ${i}` }) },
    { block: { type: "tool_call", id: "call_1", name: "f" }, delta: (index: number) => ({ type: "tool_args_delta", index, fragment: `{"n":${index}}` }), wire: (i: number) => ({ type: "input_json_delta", partial_json: `{"n":${i}}` }) },
  ] as const;
  for (let index = 0; index < 70; index++) {
    const kind = kinds[index % kinds.length]!;
    events.push({ type: "block_start", index, block: kind.block } as StreamEvent, kind.delta(index) as StreamEvent);
    if (kind.block.type === "thinking") events.push({ type: "signature_delta", index, signature: `sig${index}` });
    events.push({ type: "block_stop", index });
    expected.push(JSON.stringify({ type: "content_block_delta", index, delta: kind.wire(index) }));
    if (kind.block.type === "thinking") expected.push(JSON.stringify({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: `sig${index}` } }));
  }
  const deltas = splitSse(encode(events)).filter((e) => e.event === "content_block_delta");
  expect(deltas.map((e) => e.data)).toEqual(expected);
  expect(deltas.length).toBe(70 + 23);
});
