import { describe, expect, test } from "bun:test";
import { endOfFirstEvent } from "../../src/upstream/sse/end-of-first-event.ts";
import { parseSseEvent, readFirstEvent, type ByteReader } from "../../src/upstream/sse/read-first-event.ts";

function readerOf(chunks: string[]): ByteReader {
  const queue = chunks.map((c) => Buffer.from(c));
  return {
    read: async () => {
      const value = queue.shift();
      return value ? { done: false as const, value } : { done: true as const };
    },
    cancel: async () => {},
  };
}

describe("SSE first event", () => {
  test.each([
    ["a\n\nb", 3],
    ["a\r\n\r\nb", 5],
    ["a\nb\n", -1],
    ["", -1],
  ])("endOfFirstEvent(%j) = %d", (text, expected) => {
    expect(endOfFirstEvent(Buffer.from(text))).toBe(expected);
  });

  test.each([
    ["event: message_start\ndata: {\"a\":1}", { event: "message_start", data: '{"a":1}' }],
    ["data: [DONE]", { event: undefined, data: "[DONE]" }],
    [": keep-alive\ndata:{\"b\":2}", { event: undefined, data: '{"b":2}' }],
    ["event: x\r\ndata: 1\r\ndata: 2\r", { event: "x", data: "1\n2" }],
    ["", { event: undefined, data: "" }],
    ["data:", { event: undefined, data: "" }],
    ["data:\r\ndata: ", { event: undefined, data: "\n" }],
    ["data:  two spaces\n", { event: undefined, data: " two spaces" }],
    ["event:ping\n\n", { event: "ping", data: "" }],
    ["id: 7\nretry: 10\ndata: a\n: comment\ndata: b", { event: undefined, data: "a\nb" }],
    ["event: first\nevent:  second \ndata: x", { event: "second", data: "x" }],
    ["\ndata: after a blank line", { event: undefined, data: "after a blank line" }],
    ["datum: not data\nevents: not an event", { event: undefined, data: "" }],
  ])("parseSseEvent(%j)", (block, expected) => {
    expect(parseSseEvent(block)).toEqual(expected);
  });

  test("waits across chunks and skips comment-only blocks", async () => {
    const first = await readFirstEvent(readerOf([": ping\n\n", "event: a\nda", 'ta: {"x":1}\n\nevent: b\n']), 1024);
    expect(first?.event).toEqual({ event: "a", data: '{"x":1}' });
    expect(first?.buffered.toString()).toBe(': ping\n\nevent: a\ndata: {"x":1}\n\nevent: b\n');
  });

  test("reads on while the events only open the stream, and hands over every byte read", async () => {
    const chunks = ["event: a\ndata: 1\n", "\nevent: b\ndata: 2\n\nevent: c\nda", "ta: 3\r\n\r", "\nevent: d\n"];
    const seen: string[] = [];
    const first = await readFirstEvent(readerOf(chunks), 1024, (event) => {
      seen.push(event.data);
      return event.data !== "3";
    });
    expect(seen).toEqual(["1", "2", "3"]);
    expect(first?.event).toEqual({ event: "a", data: "1" });
    expect(first?.buffered.toString()).toBe(chunks.join(""));
  });

  test("an event that only opens the stream, then the end: null", async () => {
    expect(await readFirstEvent(readerOf(["data: 1\n\n"]), 1024, () => true)).toBeNull();
  });

  test("null when the stream ends before an event", async () => {
    expect(await readFirstEvent(readerOf(["event: a\n"]), 1024)).toBeNull();
  });

  test("refuses a first event longer than the limit, without waiting for its end", async () => {
    const error = await readFirstEvent(readerOf(["data: {", "x".repeat(600), "x".repeat(600)]), 1024).catch((e: unknown) => e);
    expect(String(error)).toContain("larger than 1024 bytes");
  });
});
