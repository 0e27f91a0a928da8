import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { messagesStreamDecoder } from "../../../src/wire/messages/decode-stream.ts";
import { inspectMessagesStream } from "../../../src/wire/messages/inspect-stream.ts";
import { readBlockDelta } from "../../../src/wire/messages/read-block-delta.ts";

const delta = (index: string, type: string, key: string, literal: string): string =>
  `{"type":"content_block_delta","index":${index},"delta":{"type":"${type}","${key}":${literal}}}`;

describe("readBlockDelta", () => {
  test.each([
    ["a text delta", delta("0", "text_delta", "text", '"Hello"'), { index: 0, kind: "text", text: "Hello" }],
    ["a tool-argument fragment", delta("12", "input_json_delta", "partial_json", '"{\\"city\\": "'), { index: 12, kind: "tool_args", text: '{"city": ' }],
    ["thinking", delta("3", "thinking_delta", "thinking", '"hmm"'), { index: 3, kind: "thinking", text: "hmm" }],
    ["escapes, as JSON.parse reads them", delta("1", "text_delta", "text", '"a\\nb \\u00e9 \\ud83d\\ude00 \\/"'), { index: 1, kind: "text", text: "a\nb é 😀 /" }],
    ["an empty string", delta("0", "input_json_delta", "partial_json", '""'), { index: 0, kind: "tool_args", text: "" }],
    // The pass-through pipe reads event data as Latin-1: bytes above 0x7f are characters of a string like any other.
    ["UTF-8 read as Latin-1", delta("0", "text_delta", "text", `"${Buffer.from("né", "utf8").toString("latin1")}"`), { index: 0, kind: "text", text: Buffer.from("né", "utf8").toString("latin1") }],
  ])("%s", (_name, data, expected) => {
    expect(readBlockDelta(data)).toEqual(expected as never);
    // The same reading as a parse gives.
    const parsed = JSON.parse(data) as { index: number; delta: Record<string, string> };
    expect(readBlockDelta(data)?.index).toBe(parsed.index);
  });

  test.each([
    ["another event", '{"type":"content_block_stop","index":0}'],
    ["a signature", delta("0", "signature_delta", "signature", '"abc"')],
    ["a citation", '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}'],
    ["a leading zero (not JSON)", delta("01", "text_delta", "text", '"x"')],
    ["no index", delta("", "text_delta", "text", '"x"')],
    ["a negative index", delta("-1", "text_delta", "text", '"x"')],
    ["an index of ten digits", delta("1234567890", "text_delta", "text", '"x"')],
    ["spacing", '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}'],
    ["other key order", '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}'],
    ["another key in the delta", '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}'],
    ["a text that is not a string", delta("0", "text_delta", "text", "42")],
    ["an invalid escape", delta("0", "text_delta", "text", '"a\\qb"')],
    ["a raw newline in the string", delta("0", "text_delta", "text", '"a\nb"')],
    ["an unclosed string", '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x}}'],
    ["one brace missing", '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}'],
    ["something after the end", `${delta("0", "text_delta", "text", '"x"')} `],
    ["a second event joined on", `${delta("0", "text_delta", "text", '"x"')}{}`],
  ])("left to a parse: %s", (_name, data) => {
    expect(readBlockDelta(data)).toBeUndefined();
  });
});

/** The event's data written otherwise (one space after each colon and comma): never read by readBlockDelta, so parsed. */
const respaced = (data: string): string => {
  try {
    return JSON.stringify(JSON.parse(data), null, 1);
  } catch {
    return data;
  }
};

function inspect(data: readonly string[]): unknown {
  const pieces: string[] = [];
  const inspector = inspectMessagesStream({ addText: (piece) => pieces.push(piece), failed: () => "failed", hideUsageChunk: false });
  const verdicts = data.map((d) => inspector.step(undefined, d));
  return { verdicts, pieces, usage: inspector.usage, startUsage: inspector.startUsage, between: inspector.between };
}

function decode(data: readonly string[]): StreamEvent[] {
  let state = messagesStreamDecoder.initial();
  const out: StreamEvent[] = [];
  for (const d of data) {
    const [next, events] = messagesStreamDecoder.step(state, { event: undefined, data: d });
    state = next;
    out.push(...events);
  }
  return [...out, ...messagesStreamDecoder.end(state)];
}

describe("Messages streams: deltas read without a parse give what the parse gives", () => {
  const corpus = join(import.meta.dir, "..", "..", "fixtures", "providers", "anthropic");
  const files = readdirSync(corpus).filter((name) => name.endsWith(".chunks.txt"));
  const recordings = files.map((file) => ({ file, data: readFileSync(join(corpus, file), "utf8").split("\n").filter((line) => line.trim() !== "") }));

  for (const { file, data } of recordings) {
    test(`recorded ${file}: the pass-through reading and the decoder`, () => {
      const parsed = data.map(respaced);
      expect(parsed.some((d, i) => d !== data[i])).toBe(true);
      expect(inspect(data)).toEqual(inspect(parsed));
      expect(decode(data)).toEqual(decode(parsed));
    });
  }

  test("the recordings' text, tool-argument and thinking deltas written as the API writes them are all read without a parse", () => {
    const KEYS: Record<string, string> = { text_delta: "text", input_json_delta: "partial_json", thinking_delta: "thinking" };
    let read = 0;
    for (const { data } of recordings) {
      for (const d of data) {
        const event = JSON.parse(d) as { type: string; index: number; delta?: Record<string, string> };
        const key = KEYS[event.delta?.type ?? ""];
        if (event.type !== "content_block_delta" || key === undefined) continue;
        // One recording's proxy wrote `text` before `type`: that one is parsed.
        const asTheApiWrites = delta(String(event.index), event.delta!.type!, key, JSON.stringify(event.delta![key]));
        if (d !== asTheApiWrites) continue;
        expect(readBlockDelta(d)).toEqual({ index: event.index, kind: expect.any(String), text: event.delta![key]! });
        read++;
      }
    }
    expect(read).toBeGreaterThan(1000);
  });

  test("a delta for a block never started is still malformed to the decoder", () => {
    const start = '{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}';
    const events = decode([start, delta("5", "text_delta", "text", '"x"')]);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { status: 502, message: expect.stringContaining("no started block") } });
  });
});
