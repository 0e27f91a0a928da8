import { describe, expect, test } from "bun:test";
import { collectStreamResponse } from "../../src/cache/collect-stream-response.ts";
import { STREAM_KEEP_LIMIT } from "../../src/cache/stream-keep-limit.ts";
import { estimateTextTokens } from "../../src/canonical/estimate-text-tokens.ts";
import type { StreamEvent } from "../../src/canonical/stream-event.ts";
import { ZERO_USAGE } from "../../src/canonical/usage.ts";
import { createCollectedTally } from "../../src/upstream/translated/create-collected-tally.ts";
import { createTextTally } from "../../src/upstream/sse/create-text-tally.ts";

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

const ANSWER: StreamEvent[] = [
  { type: "start", id: "msg_1", model: "m" },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "The user wants " },
  { type: "thinking_delta", index: 0, text: "a parser." },
  { type: "signature_delta", index: 0, signature: "c2lnbmF0dXJlIHRoYXQgaXMgbm90IHNlbnQgYXMgdGV4dA==" },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "Here is parseConfig, " },
  { type: "text_delta", index: 1, text: "with 12345 tests:\n\n" },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_call", id: "call_1", name: "write_file" } },
  { type: "tool_args_delta", index: 2, fragment: '{"path":"src/parse.ts",' },
  { type: "tool_args_delta", index: 2, fragment: '"content":"export {}"}' },
  { type: "block_stop", index: 2 },
];

const FINISH: StreamEvent = { type: "finish", stopReason: { unified: "tool_use", raw: "tool_calls" }, usage: ZERO_USAGE };

/** What the tally must count: each block's text as sent, the tool call's name and arguments, no signature. */
const EXPECTED = ["The user wants a parser.", "Here is parseConfig, with 12345 tests:\n\n", "write_file", '{"path":"src/parse.ts","content":"export {}"}'].reduce(
  (sum, text) => sum + estimateTextTokens(text),
  0,
);

describe("the tally of a collected stream", () => {
  test("counts the text the collector keeps, block by block, without its signatures", () => {
    const { tally } = feed([...ANSWER, FINISH]);
    expect(EXPECTED).toBeGreaterThan(10);
    expect(tally.tokens()).toBe(EXPECTED);
  });

  test("a stream cut before its end counts what was sent, as does one an error ended", () => {
    expect(feed(ANSWER).tally.tokens()).toBe(EXPECTED);
    const failed = feed([...ANSWER, { type: "error", error: { status: 502, type: "upstream_error", message: "cut" } }]);
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
