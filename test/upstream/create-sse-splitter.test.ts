import { describe, expect, test } from "bun:test";
import { createSseSplitter } from "../../src/upstream/sse/create-sse-splitter.ts";
import { parseSseEvent } from "../../src/upstream/sse/read-first-event.ts";
import type { SseEvent } from "../../src/wire/sse-event.ts";

const STREAM = [
  'data: {"a":1}\n\n',
  "event: message_start\ndata: {\"b\":2}\n\n",
  ": keep-alive\n\n",
  "data: first line\ndata: second line\n\n",
  "data:no space\n\n",
  "data: \n\n",
  "event: ping\n\n",
  'data: {"crlf":true}\r\n\r\n',
  "event: x\r\ndata: 1\r\n\r\n",
  "id: 7\nretry: 10\ndata: a\n: comment\ndata: b\n\n",
  'data: {"text":"é 漢字 🙂"}\n\n',
  "\n\n",
  "data: [DONE]\n\n",
].join("");

/** What the splitter must give: each blank-line block parsed, blocks with neither data nor a name dropped. */
function reference(text: string): SseEvent[] {
  return text
    .replaceAll("\r\n", "\n")
    .split("\n\n")
    .slice(0, -1)
    .map(parseSseEvent)
    .filter((event) => event.data !== "" || event.event !== undefined);
}

describe("createSseSplitter", () => {
  test("any cut of the bytes gives the same events as parsing each block", () => {
    const bytes = Buffer.from(STREAM);
    const expected = reference(STREAM);
    for (let size = 1; size <= bytes.length; size += size < 40 ? 1 : 37) {
      const splitter = createSseSplitter(1 << 20);
      const events: SseEvent[] = [];
      for (let at = 0; at < bytes.length; at += size) events.push(...splitter.push(bytes.subarray(at, at + size)));
      events.push(...splitter.end());
      expect(events).toEqual(expected);
    }
  });

  test("an event past the limit overflows, a one-line event as well as a longer one", () => {
    for (const event of [`data: ${"x".repeat(100)}\n\n`, `event: big\ndata: ${"x".repeat(100)}\n\n`]) {
      const splitter = createSseSplitter(50);
      expect(splitter.push(Buffer.from(`data: small\n\n${event}`))).toEqual([{ event: undefined, data: "small" }]);
      expect(splitter.overflowed).toBe(true);
    }
  });

  test("each event in a chunk of its own gives the same events, and one past the limit overflows alone", () => {
    const blocks = STREAM.split(/(?<=\n\n)/);
    const splitter = createSseSplitter(1 << 20);
    const events = blocks.flatMap((block) => splitter.push(Buffer.from(block)));
    events.push(...splitter.end());
    expect(events).toEqual(reference(STREAM));
    const small = createSseSplitter(50);
    expect(small.push(Buffer.from(`data: ${"x".repeat(42)}\n\n`))).toEqual([{ event: undefined, data: "x".repeat(42) }]);
    expect(small.push(Buffer.from(`data: ${"x".repeat(100)}\n\n`))).toEqual([]);
    expect(small.overflowed).toBe(true);
  });
});
