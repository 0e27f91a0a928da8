import { describe, expect, test } from "bun:test";
import { collectStreamResponse } from "../../src/cache/collect-stream-response.ts";
import { STREAM_KEEP_LIMIT } from "../../src/cache/stream-keep-limit.ts";
import { estimateTextTokens } from "../../src/canonical/estimate-text-tokens.ts";
import type { StreamEvent } from "../../src/canonical/stream-event.ts";
import { createCollectedTally } from "../../src/upstream/translated/create-collected-tally.ts";
import { createTextTally } from "../../src/upstream/sse/create-text-tally.ts";
import { TOOL_STREAM } from "../wire/messages/stream-events.ts";

/** The text an event sends, as the translating path hands it to its tally. */
function sentText(event: StreamEvent): string | undefined {
  if (event.type === "text_delta" || event.type === "thinking_delta") return event.text;
  if (event.type === "tool_args_delta") return event.fragment;
  if (event.type === "block_start" && event.block.type === "tool_call") return event.block.name;
  return undefined;
}

/** Each event collected, then its text added to the tally, in that order, as `encodeEvents` does. */
function feed(events: readonly StreamEvent[]): ReturnType<typeof createCollectedTally> {
  const collected = createCollectedTally();
  for (const event of events) {
    collectStreamResponse(collected.collector, event);
    const text = sentText(event);
    if (text !== undefined) collected.tally.add(text);
  }
  return collected;
}

/** The answer without its finish: a stream cut, or the client gone, before its end. */
const UNFINISHED = TOOL_STREAM.slice(0, -1);

/** What the tally must count: each block's text as sent, each tool call's name and arguments, no signature. */
const EXPECTED = ["Two lookups are needed.", "Checking both.", "get_weather", '{"city":"Paris"}', "get_time", '{"zone":"CET"}'].reduce(
  (sum, text) => sum + estimateTextTokens(text),
  0,
);

describe("the tally of a collected stream", () => {
  test("counts the text the collector keeps, block by block, without its signatures", () => {
    const { tally } = feed(TOOL_STREAM);
    expect(EXPECTED).toBeGreaterThan(10);
    expect(tally.tokens()).toBe(EXPECTED);
  });

  test("a stream cut before its end counts what was sent, as does one an error ended", () => {
    expect(feed(UNFINISHED).tally.tokens()).toBe(EXPECTED);
    const failed = feed([...UNFINISHED, { type: "error", error: { status: 502, type: "upstream_error", message: "cut" } }]);
    expect(failed.collector.failed).toBe(true);
    expect(failed.tally.tokens()).toBe(EXPECTED);
  });

  test("an answer that outgrows the collector: what it held is counted when it lets go, and the rest as it comes", () => {
    const word = "alpha ";
    const piece = word.repeat(1_000);
    const pieces = Math.ceil(STREAM_KEEP_LIMIT / piece.length) + 20;
    const events: StreamEvent[] = [
      { type: "start", id: "msg_2", model: "m" },
      { type: "block_start", index: 0, block: { type: "text" } },
      ...Array.from({ length: pieces }, (): StreamEvent => ({ type: "text_delta", index: 0, text: piece })),
    ];
    const { collector, tally } = feed(events);
    expect(collector.failed).toBe(true);
    expect(collector.blocks.length).toBe(0);
    // Each word is one token, and the counting tally of the same pieces agrees.
    const plain = createTextTally();
    for (let i = 0; i < pieces; i++) plain.add(piece);
    expect(tally.tokens()).toBe(pieces * 1_000);
    expect(plain.tokens()).toBe(pieces * 1_000);
  });
});
