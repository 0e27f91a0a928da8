import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../src/canonical/stream-event.ts";
import { createSseSplitter } from "../../src/upstream/sse/create-sse-splitter.ts";
import { decodeUpstreamRead } from "../../src/upstream/translated/decode-upstream-read.ts";
import { chatApi } from "../../src/wire/chat/api.ts";
import { newShapeMemory } from "../../src/wire/json-shape.ts";
import { messagesApi } from "../../src/wire/messages/api.ts";
import { responsesApi } from "../../src/wire/responses/api.ts";
import type { SseEvent } from "../../src/wire/sse-event.ts";
import type { UpstreamAdapter } from "../../src/wire/upstream-adapter.ts";
import { loadRecordings } from "../replay/recordings.ts";

/**
 * The translating path reads a Chat, Messages or Responses upstream's frequent events from bytes
 * (the decoder's `stepBytes`) and the rest through the SSE splitter. Whatever the stream and however
 * it is cut into reads, its canonical events must be those of the splitter alone with every event
 * parsed.
 */

const CHAT = chatApi.upstream;
const MESSAGES = messagesApi.upstream;
const RESPONSES = responsesApi.upstream;

/** A decoder's state with its learned shapes switched off, when it has any: every event through JSON.parse. */
const withoutShapes = (state: unknown): unknown => (state !== null && typeof state === "object" && "shapes" in state ? { ...state, shapes: newShapeMemory(0) } : state);

/** The same decoder without its byte reader or shapes: every event split as text and parsed, the reference. */
const splitOnly = (adapter: UpstreamAdapter): UpstreamAdapter => ({ ...adapter, stream: { ...adapter.stream, stepBytes: undefined, initial: () => withoutShapes(adapter.stream.initial()) } });

interface Decoded {
  readonly events: StreamEvent[];
  readonly overflowed: boolean;
  /** The bytes the byte reader read. */
  readonly byteRead: number;
  /** The events the check saw. */
  readonly checked: SseEvent[];
}

/** The stream's reads through the translating path's read decoder, checked until the first content as the path does. */
function decode(adapter: UpstreamAdapter, reads: readonly Uint8Array[], maxEventBytes = 1 << 20): Decoded {
  let byteRead = 0;
  const counted: UpstreamAdapter =
    adapter.stream.stepBytes === undefined
      ? adapter
      : {
          ...adapter,
          stream: {
            ...adapter.stream,
            stepBytes(state, bytes, at, max, out) {
              const next = adapter.stream.stepBytes!(state, bytes, at, max, out);
              byteRead += next - at;
              return next;
            },
          },
        };
  const reading = { splitter: createSseSplitter(maxEventBytes), decoder: adapter.stream.initial() };
  const events: StreamEvent[] = [];
  const checked: SseEvent[] = [];
  // One list for every read, emptied before each, as the gateway's pipe keeps it.
  const read: StreamEvent[] = [];
  let checking = true;
  for (const bytes of [...reads, null]) {
    const check = checking ? (event: SseEvent) => void checked.push(event) : undefined;
    read.length = 0;
    events.push(...decodeUpstreamRead(reading, bytes, counted, maxEventBytes, read, check));
    if (reading.splitter.overflowed) break;
    if (events.some((event) => event.type !== "start")) checking = false;
  }
  return { events, overflowed: reading.splitter.overflowed, byteRead, checked };
}

const encoder = new TextEncoder();

/** `text` cut into reads of `size` bytes (the last shorter). */
function cutEvery(bytes: Uint8Array, size: number): Uint8Array[] {
  const reads: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) reads.push(bytes.slice(at, at + size));
  return reads;
}

/** `bytes` cut at `count` places a seeded generator picks (cuts inside characters and line ends included). */
function cutAtRandom(bytes: Uint8Array, count: number, seed: number): Uint8Array[] {
  let state = seed;
  const next = (): number => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const cuts = [...new Set(Array.from({ length: count }, () => Math.floor(next() * bytes.length)))].sort((a, b) => a - b);
  const reads: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) reads.push(bytes.slice(from, cut));
    from = cut;
  }
  return reads;
}

/** A Chat stream's body from event data, framed as `data:` events. */
const sse = (lines: readonly string[], lineEnd = "\n"): string => lines.map((line) => `data: ${line}${lineEnd}${lineEnd}`).join("");

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}, finish: string | null = null): string =>
  JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
const usage = JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } });

/** Text pieces with what a literal can hold: escapes of every kind, characters past ASCII raw, a byte sequence that is not UTF-8 aside. */
const PIECES = [" plain words", ' a "quote"', " back\\slash", " new\nline\ttab", " é — ’ 漢字 🙂", " \u0001 control", " </script> / slash", " \ud83d\ude00 pair", " lone \ud800 half", ""];
const mixedText = (count: number): string[] => [
  chunk({ role: "assistant", content: "" }),
  ...Array.from({ length: count }, (_, i) => chunk({ content: `${PIECES[i % PIECES.length]} ${i}` })),
  ...Array.from({ length: 40 }, (_, i) => chunk({ reasoning_content: `think ${i} “${i}”` })),
  chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "run", arguments: "" } }] }),
  ...Array.from({ length: 60 }, (_, i) => chunk({ tool_calls: [{ index: 0, function: { arguments: i % 7 === 0 ? '{\\"a\\": \\"é\\"' : `"${i}",` } }] })),
  // The shape's bytes change mid-stream (a new id, as a server that restarts its ids would send).
  ...Array.from({ length: 40 }, (_, i) => chunk({ content: ` again ${i}` }, { id: "chatcmpl-2" })),
  chunk({}, {}, "stop"),
  usage,
  "[DONE]",
];

/** A recorded stream's frequent events, cycled to `count`, between its opening and its end: a burst of a real provider's bytes. */
function cycled(lines: readonly string[], count: number): string[] {
  const frequent = lines.filter((line) => /"(content|arguments|reasoning_content)":"[^"]/.test(line));
  if (frequent.length === 0) return [...lines];
  const first = lines.indexOf(frequent[0]!);
  const last = lines.lastIndexOf(frequent[frequent.length - 1]!);
  return [...lines.slice(0, first), ...Array.from({ length: count }, (_, i) => frequent[i % frequent.length]!), ...lines.slice(last + 1)];
}

const RECORDINGS = loadRecordings().filter((recording) => recording.stream);
const CHAT_RECORDINGS = RECORDINGS.filter((recording) => recording.api === "chat");

const CHAT_BODIES: ReadonlyArray<readonly [string, Uint8Array]> = [
  ["mixed text, reasoning, a call and escapes", encoder.encode(sse(mixedText(500)))],
  ["the same with CRLF line ends", encoder.encode(sse(mixedText(200), "\r\n"))],
  ["the same after a byte order mark, with comments and named events among them", encoder.encode(`\ufeff: open\n\n${sse(mixedText(100).slice(0, 60))}event: message\ndata: ${chunk({ content: "named" })}\n\n: keep-alive\n\n${sse(mixedText(100).slice(60))}`)],
  ["a literal with a byte that is not UTF-8", new Uint8Array([...encoder.encode(sse(mixedText(40).slice(0, 30))), ...encoder.encode(`data: ${chunk({ content: "bad " }).replace('bad "', 'bad \u0000"')}`).map((byte) => (byte === 0 ? 0xff : byte)), ...encoder.encode(`\n\n${sse(mixedText(40).slice(30))}`)])],
  ["a literal with a raw control character", new Uint8Array([...encoder.encode(sse(mixedText(40).slice(0, 30))), ...encoder.encode(`data: ${chunk({ content: "raw " }).replace('raw "', 'raw \u0000"')}`).map((byte) => (byte === 0 ? 0x01 : byte)), ...encoder.encode(`\n\n${sse(mixedText(40).slice(30))}`)])],
  [
    "text chunks that carry more than their text: reasoning, a refusal, a tool call, a finish reason, a usage",
    encoder.encode(
      sse([
        chunk({ role: "assistant", content: "" }),
        ...Array.from({ length: 60 }, (_, i) => chunk({ content: i % 10 === 9 ? "" : ` text ${i}` }, { obfuscation: `pad${i}` })),
        ...Array.from({ length: 60 }, (_, i) => chunk({ reasoning_content: ` why ${i}`, content: ` text ${i}` })),
        ...Array.from({ length: 60 }, (_, i) => chunk({ content: ` text ${i}`, refusal: " no" })),
        ...Array.from({ length: 60 }, (_, i) => chunk({ content: ` text ${i}`, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "run", arguments: "" } }] })),
        // Each stops the block its text opened.
        ...Array.from({ length: 60 }, (_, i) => chunk({ content: ` text ${i}` }, {}, "length")),
        ...Array.from({ length: 60 }, (_, i) => chunk({ content: ` text ${i}` }, { usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } })),
        "[DONE]",
      ]),
    ),
  ],
  ["text dense with characters past ASCII", encoder.encode(sse([chunk({ role: "assistant", content: "" }), ...Array.from({ length: 400 }, (_, i) => chunk({ content: `漢字の文と🙂${i}` })), chunk({}, {}, "stop"), usage, "[DONE]"]))],
  ...CHAT_RECORDINGS.map((recording) => [`${recording.file}, cycled`, encoder.encode(sse(cycled(recording.lines!, 300)))] as const),
  ...CHAT_RECORDINGS.map((recording) => [`${recording.file}, as recorded`, encoder.encode(sse(recording.lines!))] as const),
];

/** A Messages or Responses stream's body from event data: each named by its type, as the APIs frame them. */
const named = (lines: readonly string[], lineEnd = "\n"): string =>
  lines.map((line) => `event: ${/"type":"([^"]+)"/.exec(line)?.[1]}${lineEnd}data: ${line}${lineEnd}${lineEnd}`).join("");

const delta = (index: number, value: Record<string, unknown>): string => JSON.stringify({ type: "content_block_delta", index, delta: value });
const blockStart = (index: number, block: Record<string, unknown>): string => JSON.stringify({ type: "content_block_start", index, content_block: block });
const blockStop = (index: number): string => JSON.stringify({ type: "content_block_stop", index });
const MESSAGE_START = JSON.stringify({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } } });
const MESSAGE_END = [JSON.stringify({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 90 } }), JSON.stringify({ type: "message_stop" })];

/** A thinking block, a text block with every kind of literal and a ping among its deltas, a call's arguments. */
const mixedMessages = (count: number): string[] => [
  MESSAGE_START,
  blockStart(0, { type: "thinking", thinking: "" }),
  ...Array.from({ length: 30 }, (_, i) => delta(0, { type: "thinking_delta", thinking: `think ${i} “${i}”` })),
  delta(0, { type: "signature_delta", signature: "c2lnbmF0dXJl" }),
  blockStop(0),
  blockStart(1, { type: "text", text: "" }),
  ...Array.from({ length: count }, (_, i) => (i === 50 ? JSON.stringify({ type: "ping" }) : delta(1, { type: "text_delta", text: `${PIECES[i % PIECES.length]} ${i}` }))),
  blockStop(1),
  blockStart(2, { type: "tool_use", id: "toolu_1", name: "run", input: {} }),
  delta(2, { type: "input_json_delta", partial_json: "" }),
  ...Array.from({ length: 40 }, (_, i) => delta(2, { type: "input_json_delta", partial_json: i % 7 === 0 ? '{"a": "é"' : `"${i}",` })),
  blockStop(2),
  ...MESSAGE_END,
];

/** A recorded Messages stream's deltas, cycled to `count`, between its opening and its end. */
function cycledMessages(lines: readonly string[], count: number): string[] {
  const deltas = lines.filter((line) => line.startsWith('{"type":"content_block_delta"'));
  if (deltas.length === 0) return [...lines];
  const first = lines.indexOf(deltas[0]!);
  const last = lines.lastIndexOf(deltas[deltas.length - 1]!);
  const between = lines.slice(first, last + 1);
  return [...lines.slice(0, first), ...Array.from({ length: count }, (_, i) => between[i % between.length]!), ...lines.slice(last + 1)];
}

const MESSAGES_RECORDINGS = RECORDINGS.filter((recording) => recording.api === "messages" && recording.lines!.every((line) => /^\{"type":"[a-z_]+"/.test(line)));

const MESSAGES_BODIES: ReadonlyArray<readonly [string, Uint8Array]> = [
  ["mixed thinking, text, a ping, a call and escapes", encoder.encode(named(mixedMessages(400)))],
  ["the same with CRLF line ends", encoder.encode(named(mixedMessages(200), "\r\n"))],
  ["deltas written otherwise: unnamed, spaced, an index with a leading zero", encoder.encode(`${named(mixedMessages(100).slice(0, 40))}data: ${delta(1, { type: "text_delta", text: "unnamed" })}\n\nevent: content_block_delta\ndata: {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "spaced"}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"zero"}}\n\n${named(mixedMessages(100).slice(40))}`)],
  ["a delta for a block never started", encoder.encode(named([...mixedMessages(100).slice(0, 60), delta(7, { type: "text_delta", text: "nowhere" }), ...mixedMessages(100).slice(60)]))],
  ["text dense with characters past ASCII", encoder.encode(named([MESSAGE_START, blockStart(0, { type: "text", text: "" }), ...Array.from({ length: 400 }, (_, i) => delta(0, { type: "text_delta", text: `漢字の文と🙂${i}` })), blockStop(0), ...MESSAGE_END]))],
  ...MESSAGES_RECORDINGS.map((recording) => [`${recording.file}, cycled`, encoder.encode(named(cycledMessages(recording.lines!, 300)))] as const),
  ...MESSAGES_RECORDINGS.map((recording) => [`${recording.file}, as recorded`, encoder.encode(named(recording.lines!))] as const),
];

/** A Responses stream's body from event data, each named by its type, as the API frames them. */
const responsesEvent = (sequence: number, type: string, fields: Record<string, unknown>): string => JSON.stringify({ type, sequence_number: sequence, ...fields });

/** A reasoning summary, a message whose text has every kind of literal, a call's arguments: each streamed in deltas. */
function mixedResponses(count: number): string[] {
  let n = 0;
  const next = (type: string, fields: Record<string, unknown> = {}): string => responsesEvent(n++, type, fields);
  const texts = Array.from({ length: count }, (_, i) => `${PIECES[i % PIECES.length]} ${i}`);
  const args = Array.from({ length: 40 }, (_, i) => (i % 7 === 0 ? '{"a": "é"' : `"${i}",`));
  return [
    next("response.created", { response: { id: "resp_1", model: "m", status: "in_progress" } }),
    next("response.output_item.added", { output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } }),
    next("response.reasoning_summary_part.added", { item_id: "rs_1", output_index: 0, summary_index: 0, part: { type: "summary_text", text: "" } }),
    ...Array.from({ length: 30 }, (_, i) => next("response.reasoning_summary_text.delta", { item_id: "rs_1", output_index: 0, summary_index: 0, delta: `think ${i} “${i}”`, obfuscation: "x".repeat(i % 9) })),
    next("response.output_item.done", { output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "e" } }),
    next("response.output_item.added", { output_index: 1, item: { id: "msg_1", type: "message", role: "assistant", content: [] } }),
    next("response.content_part.added", { item_id: "msg_1", output_index: 1, content_index: 0, part: { type: "output_text", text: "" } }),
    ...texts.map((delta, i) => next("response.output_text.delta", { item_id: "msg_1", output_index: 1, content_index: 0, delta, logprobs: [], obfuscation: "y".repeat(i % 11) })),
    next("response.output_text.done", { item_id: "msg_1", output_index: 1, content_index: 0, text: texts.join("") }),
    next("response.content_part.done", { item_id: "msg_1", output_index: 1, content_index: 0 }),
    next("response.output_item.done", { output_index: 1, item: { id: "msg_1", type: "message", role: "assistant", content: [{ type: "output_text", text: texts.join("") }] } }),
    next("response.output_item.added", { output_index: 2, item: { id: "fc_1", type: "function_call", call_id: "call_1", name: "run", arguments: "" } }),
    ...args.map((delta) => next("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 2, delta })),
    next("response.function_call_arguments.done", { item_id: "fc_1", output_index: 2, arguments: args.join("") }),
    next("response.output_item.done", { output_index: 2, item: { id: "fc_1", type: "function_call", call_id: "call_1", name: "run", arguments: args.join("") } }),
    next("response.completed", { response: { id: "resp_1", model: "m", status: "completed", usage: { input_tokens: 5, output_tokens: 9, total_tokens: 14 } } }),
  ];
}

/** A recorded Responses stream's deltas, cycled to `count` (their sequence numbers counted on), between its opening and its end. */
function cycledResponses(lines: readonly string[], count: number): string[] {
  const isDelta = (line: string): boolean => /"type":"response\.[a-z_.]+\.delta"/.test(line);
  const deltas = lines.filter(isDelta);
  if (deltas.length === 0) return [...lines];
  const first = lines.indexOf(deltas[0]!);
  const last = lines.lastIndexOf(deltas[deltas.length - 1]!);
  const between = lines.slice(first, last + 1).filter(isDelta);
  return [...lines.slice(0, first), ...Array.from({ length: count }, (_, i) => between[i % between.length]!.replace(/"sequence_number":\d+/, `"sequence_number":${1000 + i}`)), ...lines.slice(last + 1)];
}

const RESPONSES_RECORDINGS = RECORDINGS.filter((recording) => recording.api === "responses" && recording.lines!.every((line) => /"type":"[a-z_.]+"/.test(line)));

const RESPONSES_BODIES: ReadonlyArray<readonly [string, Uint8Array]> = [
  ["mixed reasoning, text with every kind of literal, a call", encoder.encode(named(mixedResponses(400)))],
  ["the same without event names", encoder.encode(sse(mixedResponses(300)))],
  ["the same with CRLF line ends", encoder.encode(named(mixedResponses(200), "\r\n"))],
  ["sequence numbers written otherwise: a leading zero, a fraction", encoder.encode(named(mixedResponses(100).map((line, i) => (i === 70 ? line.replace(/"sequence_number":(\d+)/, '"sequence_number":0$1') : i === 80 ? line.replace(/"sequence_number":(\d+)/, '"sequence_number":$1.0') : line))))],
  ...RESPONSES_RECORDINGS.map((recording) => [`${recording.file}, cycled`, encoder.encode(named(cycledResponses(recording.lines!, 300)))] as const),
];

const CASES = [
  ...CHAT_BODIES.map(([name, body]) => [`chat: ${name}`, CHAT, body] as const),
  ...MESSAGES_BODIES.map(([name, body]) => [`messages: ${name}`, MESSAGES, body] as const),
  ...RESPONSES_BODIES.map(([name, body]) => [`responses: ${name}`, RESPONSES, body] as const),
];

describe.each(CASES)("%s", (_name, adapter, body) => {
  const SPLIT_ONLY = splitOnly(adapter);
  const expected = decode(SPLIT_ONLY, [body]);

  test("the splitter alone decodes it to a finished answer", () => {
    expect(expected.events.length).toBeGreaterThanOrEqual(1);
    expect(expected.events.at(-1)?.type).toMatch(/^(finish|error)$/);
  });

  test.each([["one read", 0], ["reads of 1 byte", 1], ["of 7", 7], ["of 300", 300], ["of 4,096", 4096], ["of 64 KB", 65_536]])("in %s, the same events as the splitter alone", (_reads, size) => {
    const reads = size === 0 ? [body] : cutEvery(body, size);
    const got = decode(adapter, reads);
    expect(got.events).toEqual(decode(SPLIT_ONLY, reads).events);
    expect(got.events).toEqual(expected.events);
    expect(got.checked).toEqual(decode(SPLIT_ONLY, reads).checked);
  });

  test.each([1, 2, 3])("cut at random places (seed %d), the same events", (seed) => {
    const reads = cutAtRandom(body, 40, seed);
    expect(decode(adapter, reads).events).toEqual(expected.events);
  });
});

describe("what the byte reader reads", () => {
  const SPLIT_ONLY = splitOnly(CHAT);
  const burst = encoder.encode(sse([chunk({ role: "assistant", content: "" }), ...Array.from({ length: 2000 }, (_, i) => chunk({ content: ` three more words ${i}` })), chunk({}, {}, "stop"), usage, "[DONE]"]));

  // In one read, the start is checked and the shape learned on its first few KB, and the rest is
  // read from bytes. The event a read's end cuts in two is the splitter's: in reads of 1,000 bytes,
  // one of every five or six.
  test.each([["in one read", [burst], 0.95], ["in reads of 64 KB", cutEvery(burst, 65_536), 0.95], ["in reads of 1,000 bytes", cutEvery(burst, 1000), 0.75]] as const)("a 2,000-event burst %s: all but its first events", (_how, reads, share) => {
    const got = decode(CHAT, reads);
    expect(got.events).toEqual(decode(SPLIT_ONLY, reads).events);
    expect(got.byteRead / burst.length).toBeGreaterThan(share);
  });

  /** An answer of 2,000 text deltas in reads of `size`: its events are the reference's, and the share of its bytes the byte reader read. */
  function readAnswer(adapter: UpstreamAdapter, answer: Uint8Array, size: number): number {
    const reads = cutEvery(answer, size);
    const got = decode(adapter, reads);
    expect(got.events).toEqual(decode(splitOnly(adapter), reads).events);
    expect(got.events.filter((event) => event.type === "text_delta")).toHaveLength(2000);
    return got.byteRead / answer.length;
  }

  test.each([["in one read", 1 << 20], ["in reads of 64 KB", 65_536]] as const)("a Messages answer of 2,000 text deltas %s: all but its first events", (_how, size) => {
    const answer = encoder.encode(named([MESSAGE_START, blockStart(0, { type: "text", text: "" }), ...Array.from({ length: 2000 }, (_, i) => delta(0, { type: "text_delta", text: ` three more words ${i}` })), blockStop(0), ...MESSAGE_END]));
    expect(readAnswer(MESSAGES, answer, size)).toBeGreaterThan(0.95);
  });

  test("bytes of a character cut short between two events, read as the splitter reads them", () => {
    // Dense text turns the splitter to decoding read by read; the two bytes that open a character
    // end a read between two events, so the next event's first line is not `data:` once decoded.
    const dense = sse([chunk({ role: "assistant", content: "" }), ...Array.from({ length: 300 }, (_, i) => chunk({ content: `漢字の文と🙂${i}` }))]);
    const rest = sse([...Array.from({ length: 50 }, (_, i) => chunk({ content: `漢字${i}` })), chunk({}, {}, "stop"), usage, "[DONE]"]);
    const reads = [new Uint8Array([...encoder.encode(dense), 0xe6, 0xbc]), encoder.encode(rest)];
    const got = decode(CHAT, reads);
    expect(got.events).toEqual(decode(SPLIT_ONLY, reads).events);
    expect(got.events.filter((event) => event.type === "text_delta")).toHaveLength(349);
  });

  test.each([["in one read", 1 << 20], ["in reads of 64 KB", 65_536]] as const)("a Responses answer of 2,000 text deltas %s: all but its first events", (_how, size) => {
    const lines = mixedResponses(2000).filter((line) => !line.includes("reasoning") && !line.includes("function_call") && !line.includes('"fc_1"'));
    // Its `output_text.done` and `output_item.done` repeat the whole text: about a seventh of the answer, split.
    expect(readAnswer(RESPONSES, encoder.encode(named(lines)), size)).toBeGreaterThan(0.8);
  });

  test("the check sees the events up to the first content, as with the splitter alone", () => {
    const got = decode(CHAT, [burst]);
    expect(got.checked.length).toBe(2);
    expect(got.checked).toEqual(decode(SPLIT_ONLY, [burst]).checked);
  });

  test("an event past the size limit is refused after a shape was learned, as the splitter refuses it", () => {
    const lines = [chunk({ role: "assistant", content: "" }), ...Array.from({ length: 100 }, (_, i) => chunk({ content: ` word ${i}` })), chunk({ content: "x".repeat(5000) }), chunk({ content: " after" }), chunk({}, {}, "stop"), usage, "[DONE]"];
    const body = encoder.encode(sse(lines));
    for (const reads of [[body], cutEvery(body, 4096)]) {
      const got = decode(CHAT, reads, 4000);
      const alone = decode(SPLIT_ONLY, reads, 4000);
      expect(got.overflowed).toBe(true);
      expect(alone.overflowed).toBe(true);
      expect(got.events).toEqual(alone.events);
      expect(got.byteRead).toBeGreaterThan(0);
    }
  });
});
