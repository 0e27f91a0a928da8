import { describe, expect, test } from "bun:test";
import { countSseEvents } from "../../src/bench/count-stream-events.ts";

describe("countSseEvents", () => {
  test("counts the blocks with data; comments and keep-alives are not events", () => {
    const text = 'event: message_start\ndata: {"a":1}\n\n: keep-alive\n\nevent: ping\ndata: {}\n\ndata: [DONE]\n\n';
    expect(countSseEvents(text)).toBe(3);
  });

  test("CRLF line ends, and an event cut at the end still counts", () => {
    expect(countSseEvents('data: {"a":1}\r\n\r\ndata: {"b":2}')).toBe(2);
    expect(countSseEvents("")).toBe(0);
  });
});
