import { describe, expect, test } from "bun:test";
import { collectStreamResponse, newStreamCollector } from "../../src/cache/collect-stream-response.ts";
import { replayResponseEvents } from "../../src/cache/replay-response-events.ts";
import { STREAM_KEEP_LIMIT } from "../../src/cache/stream-keep-limit.ts";
import type { CanonicalResponse } from "../../src/canonical/response.ts";
import type { StreamEvent } from "../../src/canonical/stream-event.ts";

const usage = { inputTokens: 20, outputTokens: 12, cacheReadTokens: 5, cacheWriteTokens: 0, reasoningTokens: 4 };

const responses: Array<[string, CanonicalResponse]> = [
  ["text only", { id: "msg_1", model: "m", content: [{ type: "text", text: "hello" }], stopReason: { unified: "end_turn", raw: "end_turn" }, usage }],
  [
    "thinking with a signature, redacted thinking, text and two tool calls",
    {
      id: "resp_2",
      model: "m",
      content: [
        { type: "thinking", text: "hmm", signature: "c2ln" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "Calling tools." },
        { type: "tool_call", id: "call_1", name: "read", arguments: '{"path":"a"}' },
        { type: "tool_call", id: "call_2", name: "read", arguments: '{"path":"b"}' },
      ],
      stopReason: { unified: "tool_use", raw: "tool_calls" },
      usage,
    },
  ],
];

function collect(events: readonly StreamEvent[]) {
  const collector = newStreamCollector();
  for (const event of events) collectStreamResponse(collector, event);
  return collector.response;
}

describe("cached answers as streams", () => {
  test.each(responses)("%s: replayed, then collected again, is the same answer", (_name, response) => {
    const events = replayResponseEvents(response);
    expect(events[0]).toMatchObject({ type: "start", id: response.id });
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: response.stopReason, usage });
    expect(collect(events)).toEqual(response);
  });

  test("fragments are joined; interleaved blocks keep their order", () => {
    const events: StreamEvent[] = [
      { type: "start", id: "x", model: "m" },
      { type: "block_start", index: 0, block: { type: "tool_call", id: "a", name: "f" } },
      { type: "block_start", index: 1, block: { type: "tool_call", id: "b", name: "g" } },
      { type: "tool_args_delta", index: 1, fragment: '{"y":' },
      { type: "tool_args_delta", index: 0, fragment: '{"x":1}' },
      { type: "tool_args_delta", index: 1, fragment: "2}" },
      { type: "block_stop", index: 0 },
      { type: "block_stop", index: 1 },
      { type: "finish", stopReason: { unified: "tool_use", raw: null }, usage },
    ];
    expect(collect(events)?.content).toEqual([
      { type: "tool_call", id: "a", name: "f", arguments: '{"x":1}' },
      { type: "tool_call", id: "b", name: "g", arguments: '{"y":2}' },
    ]);
  });

  test.each([
    ["an error event", [{ type: "error", error: { status: 502, type: "upstream_error", message: "cut" } }]],
    ["a stream that stops without finishing", []],
  ] as Array<[string, StreamEvent[]]>)("%s leaves nothing to store", (_name, tail) => {
    const events: StreamEvent[] = [
      { type: "start", id: "x", model: "m" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "partial" },
      ...tail,
    ];
    expect(collect(events)).toBeNull();
  });
});

describe("a stream too long to keep", () => {
  const start: StreamEvent = { type: "start", id: "msg_long", model: "m" };
  const finish: StreamEvent = { type: "finish", stopReason: { unified: "end_turn", raw: "end_turn" }, usage };
  const piece = "x".repeat(64 * 1024);

  test("past STREAM_KEEP_LIMIT characters nothing is held and nothing rebuilt, on every kind of block", () => {
    const kinds: Array<[string, StreamEvent, (i: number) => StreamEvent]> = [
      ["text", { type: "block_start", index: 0, block: { type: "text" } }, () => ({ type: "text_delta", index: 0, text: piece })],
      ["thinking", { type: "block_start", index: 0, block: { type: "thinking" } }, (i) => (i % 2 ? { type: "thinking_delta", index: 0, text: piece } : { type: "signature_delta", index: 0, signature: piece })],
      ["tool call", { type: "block_start", index: 0, block: { type: "tool_call", id: "call_1", name: "write" } }, () => ({ type: "tool_args_delta", index: 0, fragment: piece })],
    ];
    for (const [kind, open, delta] of kinds) {
      const collector = newStreamCollector();
      collectStreamResponse(collector, start);
      collectStreamResponse(collector, open);
      const deltas = STREAM_KEEP_LIMIT / piece.length + 1;
      for (let i = 0; i < deltas; i++) collectStreamResponse(collector, delta(i));
      collectStreamResponse(collector, finish);
      expect({ kind, failed: collector.failed, blocks: collector.blocks.length, response: collector.response }).toEqual({ kind, failed: true, blocks: 0, response: null });
    }
  });

  test("a redacted thinking block past the limit is given up the same way", () => {
    const collector = newStreamCollector();
    collectStreamResponse(collector, start);
    collectStreamResponse(collector, { type: "block_start", index: 0, block: { type: "redacted_thinking", data: "r".repeat(STREAM_KEEP_LIMIT + 1) } });
    collectStreamResponse(collector, finish);
    expect(collector.response).toBeNull();
    expect(collector.blocks.length).toBe(0);
  });

  test("an answer of exactly the limit is still rebuilt whole", () => {
    const collector = newStreamCollector();
    collectStreamResponse(collector, start);
    collectStreamResponse(collector, { type: "block_start", index: 0, block: { type: "text" } });
    for (let i = 0; i < STREAM_KEEP_LIMIT / piece.length; i++) collectStreamResponse(collector, { type: "text_delta", index: 0, text: piece });
    collectStreamResponse(collector, { type: "block_stop", index: 0 });
    collectStreamResponse(collector, finish);
    expect(collector.response?.content).toEqual([{ type: "text", text: piece.repeat(STREAM_KEEP_LIMIT / piece.length) }]);
  });
});
