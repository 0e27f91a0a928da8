import { describe, expect, test } from "bun:test";
import { collectStreamResponse, newStreamCollector } from "../../src/cache/collect-stream-response.ts";
import { replayResponseEvents } from "../../src/cache/replay-response-events.ts";
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
