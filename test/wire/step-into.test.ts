import { describe, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import type { StreamEvent } from "../../src/canonical/stream-event.ts";
import { WIRE_FORMATS } from "../../src/canonical/wire-format.ts";
import type { EncodeContext, StreamEncoder } from "../../src/wire/client-format.ts";
import { parseSseEvent } from "../../src/upstream/sse/read-first-event.ts";
import type { StreamDecoder } from "../../src/wire/upstream-adapter.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";
import { loadRecordings } from "../replay/recordings.ts";
import { decodeSseText, sseBlocks } from "./chat/decode-sse-text.ts";

/**
 * `stepInto` is what the gateway reads and writes streams with; `step` is the reducer the rest of
 * the suite pins down. For every recorded stream, and every client format, the two must give the
 * same events and the same bytes.
 */

const STREAMS = loadRecordings().filter((recording) => recording.stream);

/** A recorded stream's body: each recorded line is one event's data. */
const body = (lines: readonly string[]): string => lines.map((line) => `data: ${line}\n\n`).join("");

/** The same body through `stepInto`, as `decodeSseText` reads it through `step`: one list, then `end()`. */
function decodeByStepInto<S>(decoder: StreamDecoder<S>, text: string): StreamEvent[] {
  let state = decoder.initial();
  const out: StreamEvent[] = [];
  for (const block of sseBlocks(text)) state = decoder.stepInto(state, parseSseEvent(block), out);
  out.push(...decoder.end(state));
  return out;
}

function encodeByStep<S>(encoder: StreamEncoder<S>, ctx: EncodeContext, events: readonly StreamEvent[]): string {
  let state = encoder.initial(ctx);
  let text = "";
  for (const event of events) {
    const [next, written] = encoder.step(state, event);
    state = next;
    text += written;
  }
  return text;
}

function encodeByStepInto<S>(encoder: StreamEncoder<S>, ctx: EncodeContext, events: readonly StreamEvent[]): string {
  let state = encoder.initial(ctx);
  const parts: string[] = [];
  for (const event of events) state = encoder.stepInto(state, event, parts);
  return parts.join("");
}

const CONTEXTS: readonly EncodeContext[] = [
  { model: "normal", created: 1_790_000_000, includeUsage: false },
  { model: "smart", created: 1_790_000_000, includeUsage: true },
];

const USAGE = { inputTokens: 12, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 5 };

/** What no recording shows in one stream: text that needs escapes, deltas of every kind, interleaved tool calls, empty deltas. */
const EDGES: readonly StreamEvent[] = [
  { type: "start", id: "msg_1", model: "m" },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "plain" },
  { type: "thinking_delta", index: 0, text: 'a "quoted" \\ back\nslash\t\u0001' },
  { type: "signature_delta", index: 0, signature: "sig" },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "" },
  { type: "text_delta", index: 1, text: "héllo ✓ — 😀" },
  { type: "text_delta", index: 1, text: "lone \ud800 surrogate" },
  { type: "text_delta", index: 1, text: "</script>\u2028" },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_call", id: "call_a", name: "read" } },
  { type: "block_start", index: 3, block: { type: "tool_call", id: "call_b", name: "write" } },
  { type: "tool_args_delta", index: 2, fragment: '{"path":' },
  { type: "tool_args_delta", index: 3, fragment: '{"x":1}' },
  { type: "tool_args_delta", index: 2, fragment: '"a\\"b"}' },
  { type: "tool_args_delta", index: 2, fragment: "" },
  { type: "block_stop", index: 2 },
  { type: "block_stop", index: 3 },
  { type: "text_delta", index: 9, text: "a block never started" },
  { type: "finish", stopReason: { unified: "tool_use", raw: "tool_use" }, usage: USAGE },
  { type: "text_delta", index: 1, text: "after the end" },
];

/** Deltas before any start, then an error. */
const HEADLESS: readonly StreamEvent[] = [
  { type: "block_start", index: 0, block: { type: "text" } },
  { type: "text_delta", index: 0, text: "no start" },
  { type: "error", error: { status: 502, type: "upstream_error", message: "cut" } },
  { type: "text_delta", index: 0, text: "after the error" },
];

describe("stepInto decodes as step does", () => {
  for (const recording of STREAMS) {
    test(recording.file, () => {
      const { stream } = wireApi(recording.api).upstream;
      const text = body(recording.lines ?? []);
      const byStep = decodeSseText(stream, text);
      expect(byStep.length).toBeGreaterThan(0);
      expect(decodeByStepInto(stream, text)).toEqual(byStep);
    });
  }
});

describe("stepInto encodes as step does", () => {
  const sequences: { readonly name: string; readonly events: readonly StreamEvent[] }[] = [
    { name: "edges", events: EDGES },
    { name: "headless", events: HEADLESS },
    ...STREAMS.map((recording) => ({ name: recording.file, events: decodeSseText(wireApi(recording.api).upstream.stream, body(recording.lines ?? [])) })),
  ];
  for (const format of WIRE_FORMATS) {
    for (const { name, events } of sequences) {
      test(`${format} client · ${name}`, () => {
        const { stream } = wireApi(format).client;
        for (const ctx of CONTEXTS) {
          const byStep = encodeByStep(stream, ctx, events);
          expect(byStep.length).toBeGreaterThan(0);
          expect(encodeByStepInto(stream, ctx, events)).toBe(byStep);
        }
      });
    }
  }
});

/**
 * Arrays a long Chat answer's events make, read and written as the gateway's pipe does: a decoder's
 * list and pair and an encoder's pair for every event used to make three (a 2,000-event answer cost
 * about 12 % more CPU an event in process, and its collections a tenth of the gateway's CPU). Counted
 * with the collector's cell counts between two collections, not timed.
 */
test("a long Chat answer, decoded and written as Messages, makes no array per event", () => {
  const chunk = (text: string): string =>
    `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}`;
  const upstream = sseBlocks(body([
    `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
    ...Array.from({ length: 400 }, (_, i) => chunk(`word ${i} and more `)),
  ])).map(parseSseEvent);
  const decoder = wireApi("chat").upstream.stream;
  const encoder = wireApi("messages").client.stream;
  const run = (): number => {
    let decoding = decoder.initial();
    let encoding = encoder.initial(CONTEXTS[0]!);
    const events: StreamEvent[] = [];
    for (const event of upstream) decoding = decoder.stepInto(decoding, event, events);
    const parts: string[] = [];
    for (const event of events) encoding = encoder.stepInto(encoding, event, parts);
    return parts.join("").length;
  };
  // Compiled first, as a stream that has served for a while is.
  for (let i = 0; i < 300; i++) run();
  let arrays: number | undefined;
  for (let attempt = 0; attempt < 50 && arrays === undefined; attempt++) {
    const before = heapStats();
    const counted = before.objectTypeCounts.Array ?? 0;
    run();
    const after = heapStats();
    if (after.heapSize === before.heapSize) arrays = (after.objectTypeCounts.Array ?? 0) - counted;
  }
  expect(arrays).toBeDefined();
  // Two lists a run (the events, the parts) and what heapStats itself makes: far below one an event.
  expect(arrays!).toBeLessThan(upstream.length / 4);
});
