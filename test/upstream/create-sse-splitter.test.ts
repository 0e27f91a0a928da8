import { describe, expect, test } from "bun:test";
import { jscDescribe } from "bun:jsc";
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

  /** The events the splitter gives for `bytes` cut into chunks of `size`. */
  function split(bytes: Uint8Array, size: number): SseEvent[] {
    const splitter = createSseSplitter(1 << 20);
    const events: SseEvent[] = [];
    for (let at = 0; at < bytes.length; at += size) events.push(...splitter.push(bytes.subarray(at, at + size)));
    events.push(...splitter.end());
    return events;
  }

  const ascii = (i: number): string => `data: {"i":${i},"text":"plain words of an answer"}\n\n`;
  const sizes = (bytes: Uint8Array): number[] => [1, 2, 3, 5, 7, 64, 333, 1000, 4096, bytes.length];

  /** The events the splitter gives for `bytes` cut at each of `cuts`, in order. */
  function splitAt(bytes: Uint8Array, cuts: readonly number[]): SseEvent[] {
    const splitter = createSseSplitter(1 << 20);
    const events: SseEvent[] = [];
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      events.push(...splitter.push(bytes.subarray(from, cut)));
      from = cut;
    }
    events.push(...splitter.end());
    return events;
  }

  test("text past ASCII here and there in a long stream: each event as the whole stream decoded gives it, however cut", () => {
    const text = Array.from({ length: 400 }, (_, i) => (i % 97 === 50 ? `data: {"i":${i},"text":"a dash — here"}\n\n` : i === 300 ? `data: {"i":${i},"text":"🙂"}\n\n` : ascii(i))).join("");
    // As fetch hands them over: plain byte arrays, not Buffers.
    const bytes = new Uint8Array(Buffer.from(text));
    for (const size of sizes(bytes)) expect(split(bytes, size)).toEqual(reference(text));
    // Big reads cut inside each character and after a dash (where the stream stays read as Latin-1).
    const starts = [...bytes.entries()].filter(([, byte]) => byte >= 0xc0).map(([at]) => at);
    for (const into of [1, 2, 3]) expect(splitAt(bytes, starts.map((at) => at + into))).toEqual(reference(text));
  });

  test("a stream dense with text past ASCII, after an ASCII start: decoded a read at a time from there, a character cut at the turn kept whole", () => {
    const text = Array.from({ length: 1000 }, (_, i) => (i < 100 ? ascii(i) : `data: {"i":${i},"text":"漢字の文と🙂"}\n\n`)).join("");
    const bytes = Buffer.from(text);
    // Every cut near the turn, so that some read ends inside a character.
    for (const size of [...sizes(bytes), 4097, 4098, 4099, 5000, 5001, 5002, 20_000]) expect(split(bytes, size)).toEqual(reference(text));
    // A big read judged by its start, with an event begun in the read before it held.
    expect(splitAt(bytes, [4000, 30_000])).toEqual(reference(text));
  });

  test("an event named as the one before it is given that name; one named otherwise, or written otherwise, its own", () => {
    const names = ["delta", "delta", "delta ", "deltas", "delt", " delta", "  delta", "delta", "ping", "delta", "\tdelta"];
    const text = names.map((name, i) => `event:${name === "delta" ? " " : ""}${name}\ndata: {"i":${i}}\n\n`).join("");
    for (const size of [1, 7, 1000]) {
      const events = split(Buffer.from(text), size);
      expect(events).toEqual(reference(text));
      expect(events.map((event) => event.event)).toEqual(names.map((name) => name.trim()));
    }
  });

  test("a byte order mark at the start is not part of the first event, however cut; one further on is", () => {
    const text = `\ufeffdata: {"a":1}\n\ndata: \ufeff{"b":2}\n\n`;
    const bytes = Buffer.from(text);
    for (let size = 1; size <= bytes.length; size++) {
      expect(split(bytes, size)).toEqual([
        { event: undefined, data: '{"a":1}' },
        { event: undefined, data: '\ufeff{"b":2}' },
      ]);
    }
  });

  test("bytes that are not UTF-8 read as the streaming decoder reads them (a replacement character)", () => {
    const bytes = Buffer.concat([Buffer.from('data: {"t":"a'), Buffer.from([0xff, 0xe2, 0x80]), Buffer.from('b"}\n\n'), Buffer.from(ascii(1).repeat(20))]);
    const text = new TextDecoder().decode(bytes);
    expect(text).toContain("\ufffd");
    for (const size of sizes(bytes)) expect(split(bytes, size)).toEqual(reference(text));
  });

  test("one character past Latin-1 in a read leaves the read's other events one byte a character", () => {
    // Decoded a read at a time, the dash made every event of the read a string of two bytes a character.
    const text = Array.from({ length: 200 }, (_, i) => (i === 100 ? `data: {"text":"a — b"}\n\n` : ascii(i))).join("");
    const events = createSseSplitter(1 << 20).push(Buffer.from(text));
    expect(events).toEqual(reference(text));
    const oneByte = events.filter((event) => jscDescribe(event.data).includes("8Bit:(1)"));
    expect(oneByte.length).toBe(199);
    expect(events[100]!.data).toBe('{"text":"a — b"}');
  });
});
