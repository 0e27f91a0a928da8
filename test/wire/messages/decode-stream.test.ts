import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { messagesStreamDecoder } from "../../../src/wire/messages/decode-stream.ts";
import { decodeAll } from "./sse-helpers.ts";

const fixture = (name: string): Promise<string> => Bun.file(`${import.meta.dir}/../../fixtures/messages/${name}.sse`).text();
const decode = (text: string): StreamEvent[] => decodeAll(messagesStreamDecoder, text);
const frame = (data: Record<string, unknown>): string => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
const START = frame({ type: "message_start", message: { id: "msg_1", model: "m", usage: { input_tokens: 5, output_tokens: 1 } } });

function texts(events: StreamEvent[], type: "text_delta" | "thinking_delta" | "tool_args_delta", index: number): string {
  return events
    .filter((e): e is Extract<StreamEvent, { type: typeof type }> => e.type === type && e.index === index)
    .map((e) => ("fragment" in e ? e.fragment : e.text))
    .join("");
}

describe("messagesStreamDecoder on recorded sim streams", () => {
  test("text: start, one text block, finish with usage", async () => {
    const events = decode(await fixture("text"));
    expect(events[0]).toMatchObject({ type: "start", id: expect.stringMatching(/^msg_/), model: "sim-normal" });
    expect(events[1]).toEqual({ type: "block_start", index: 0, block: { type: "text" } });
    expect(texts(events, "text_delta", 0).split(" ")).toHaveLength(12);
    expect(events.at(-2)).toEqual({ type: "block_stop", index: 0 });
    expect(events.at(-1)).toMatchObject({ type: "finish", stopReason: { unified: "end_turn", raw: "end_turn" }, usage: { outputTokens: 12 } });
  });

  test("parallel tool calls: text then two calls, arguments forwarded fragment by fragment", async () => {
    const events = decode(await fixture("parallel-tools"));
    const starts = events.filter((e) => e.type === "block_start");
    expect(starts.map((e) => e.block)).toEqual([
      { type: "text" },
      { type: "tool_call", id: expect.stringMatching(/^toolu_/), name: "get_weather" },
      { type: "tool_call", id: expect.stringMatching(/^toolu_/), name: "get_time" },
    ]);
    expect(events.filter((e) => e.type === "tool_args_delta" && e.index === 1)).toHaveLength(3);
    expect(JSON.parse(texts(events, "tool_args_delta", 1))).toEqual({ city: "sim_city" });
    expect(JSON.parse(texts(events, "tool_args_delta", 2))).toEqual({ zone: "sim_zone" });
    expect(events.at(-1)).toMatchObject({ type: "finish", stopReason: { unified: "tool_use" } });
  });

  test("thinking: deltas then the signature, in block 0; reasoning tokens in usage", async () => {
    const events = decode(await fixture("thinking"));
    expect(events[1]).toEqual({ type: "block_start", index: 0, block: { type: "thinking" } });
    expect(texts(events, "thinking_delta", 0).length).toBeGreaterThan(0);
    const signature = events.find((e) => e.type === "signature_delta");
    expect(signature).toMatchObject({ index: 0, signature: expect.stringMatching(/=$/) });
    const finish = events.at(-1);
    expect(finish?.type === "finish" && finish.usage.reasoningTokens).toBe(32);
  });

  test("cached usage: message_delta totals replace the start; input counts cache again", async () => {
    const events = decode(await fixture("cached-usage"));
    expect(events.at(-1)).toMatchObject({
      type: "finish",
      usage: { inputTokens: 40, cacheReadTokens: 32, cacheWriteTokens: 8, outputTokens: 6, reasoningTokens: 0 },
    });
  });

  test("max_tokens stop", async () => {
    expect(decode(await fixture("max-tokens")).at(-1)).toMatchObject({ type: "finish", stopReason: { unified: "max_tokens", raw: "max_tokens" } });
  });

  test("every fixture: contiguous indexes, each started block stopped before one finish, nothing after", async () => {
    for (const name of ["text", "parallel-tools", "thinking", "cached-usage", "max-tokens"]) {
      const events = decode(await fixture(name));
      const started = events.flatMap((e) => (e.type === "block_start" ? [e.index] : []));
      const stopped = events.flatMap((e) => (e.type === "block_stop" ? [e.index] : []));
      expect(started).toEqual(started.map((_, i) => i));
      expect([...stopped].sort()).toEqual(started);
      expect(events.filter((e) => e.type === "finish" || e.type === "error")).toHaveLength(1);
      expect(events.at(-1)?.type).toBe("finish");
    }
  });
});

describe("messagesStreamDecoder failures and edge cases", () => {
  const cases: [string, string, Partial<StreamEvent>][] = [
    ["cut before message_stop", START + frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }), { type: "error", error: { status: 502, type: "upstream_error", message: "upstream stream ended before message_stop" } }],
    ["nothing at all", "", { type: "error" }],
    ["malformed data", START + 'event: content_block_delta\ndata: {"type": broken\n\n', { type: "error", error: expect.objectContaining({ status: 502, type: "upstream_error" }) }],
    ["a delta for a block never started", START + frame({ type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "x" } }), { type: "error" }],
    ["content before message_start", frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }), { type: "error" }],
    [
      "upstream overloaded error event",
      START + frame({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
      { type: "error", error: { status: 529, type: "overloaded_error", message: "upstream: Overloaded" } },
    ],
    ["upstream api_error", START + frame({ type: "error", error: { type: "api_error", message: "boom" } }), { type: "error", error: { status: 502, type: "api_error", message: "upstream: boom" } }],
  ];
  test.each(cases)("%s → one error event, last", (_name, text, last) => {
    const events = decode(text);
    expect(events.filter((e) => e.type === "error")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject(last);
  });

  test("nothing is emitted after a failure", () => {
    const events = decode(START + 'data: {"type": broken\n\n' + frame({ type: "message_stop" }));
    expect(events.map((e) => e.type)).toEqual(["start", "error"]);
  });

  test("pings, unknown events, citations and server tool blocks are skipped; indexes stay contiguous", () => {
    const events = decode(
      START +
        frame({ type: "ping" }) +
        frame({ type: "content_block_start", index: 0, content_block: { type: "server_tool_use", id: "s", name: "web_search", input: {} } }) +
        frame({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{}" } }) +
        frame({ type: "content_block_stop", index: 0 }) +
        frame({ type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }) +
        frame({ type: "content_block_delta", index: 1, delta: { type: "citations_delta", citation: {} } }) +
        frame({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "ok" } }) +
        frame({ type: "content_block_stop", index: 1 }) +
        frame({ type: "brand_new_event" }) +
        frame({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4 } }) +
        frame({ type: "message_stop" }),
    );
    expect(events).toEqual([
      { type: "start", id: "msg_1", model: "m", usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "ok" },
      { type: "block_stop", index: 0 },
      { type: "finish", stopReason: { unified: "end_turn", raw: "end_turn" }, usage: { inputTokens: 5, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
  });

  test("a tool input given whole at the start is one fragment; thinking omitted shows only a signature", () => {
    const events = decode(
      START +
        frame({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }) +
        frame({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } }) +
        frame({ type: "content_block_stop", index: 0 }) +
        frame({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "t", name: "n", input: { a: 1 } } }) +
        frame({ type: "content_block_stop", index: 1 }) +
        frame({ type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 4 } }) +
        frame({ type: "message_stop" }),
    );
    expect(events.slice(1, -1)).toEqual([
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "signature_delta", index: 0, signature: "sig" },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "tool_call", id: "t", name: "n" } },
      { type: "tool_args_delta", index: 1, fragment: '{"a":1}' },
      { type: "block_stop", index: 1 },
    ]);
  });

  test("CRLF framing and data split over several lines are read", () => {
    const text = START.replace(/\n/g, "\r\n") + 'event: message_stop\r\ndata: {"type":\r\ndata: "message_stop"}\r\n\r\n';
    expect(decode(text).map((e) => e.type)).toEqual(["start", "finish"]);
  });
});

describe("messagesStreamDecoder on streams that carry several messages", () => {
  const MESSAGE_STOP = frame({ type: "message_stop" });
  const textMessage = (id: string, text: string, input: number, output: number, stop: string): string =>
    frame({ type: "message_start", message: { id, model: "m", content: [], usage: { input_tokens: input, output_tokens: 1 } } }) +
    frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
    frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }) +
    frame({ type: "content_block_stop", index: 0 }) +
    frame({ type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: output } }) +
    MESSAGE_STOP;

  test("messages that follow one another make one answer: blocks numbered on, the last stop reason, usage added up", () => {
    const events = decode(textMessage("msg_a", "one", 10, 4, "tool_use") + textMessage("msg_b", "two", 20, 6, "end_turn"));
    expect(events.filter((e) => e.type === "start")).toHaveLength(1);
    expect(events.filter((e) => e.type === "block_start").map((e) => e.index)).toEqual([0, 1]);
    expect([texts(events, "text_delta", 0), texts(events, "text_delta", 1)]).toEqual(["one", "two"]);
    expect(events.at(-1)).toMatchObject({ type: "finish", stopReason: { unified: "end_turn" }, usage: { inputTokens: 30, outputTokens: 10 } });
  });

  test("content a message_start already holds (a prepopulated tool call) is a whole block", () => {
    const prepopulated = frame({
      type: "message_start",
      message: { id: "msg_b", model: "m", content: [{ type: "tool_use", id: "toolu_2", name: "roll", input: { player: "p2" } }], stop_reason: "tool_use", usage: { input_tokens: 0, output_tokens: 0 } },
    });
    const events = decode(textMessage("msg_a", "one", 10, 4, "tool_use") + prepopulated + MESSAGE_STOP);
    expect(events.slice(4, -1)).toEqual([
      { type: "block_start", index: 1, block: { type: "tool_call", id: "toolu_2", name: "roll" } },
      { type: "tool_args_delta", index: 1, fragment: '{"player":"p2"}' },
      { type: "block_stop", index: 1 },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "finish", stopReason: { unified: "tool_use" } });
  });

  test("a repeated message_start of the open message is ignored; another message starting while one is open is malformed", () => {
    const repeated = decode(START + START + frame({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } }) + MESSAGE_STOP);
    expect(repeated.map((e) => e.type)).toEqual(["start", "finish"]);
    const spliced = decode(START + frame({ type: "message_start", message: { id: "msg_2", model: "m", usage: { input_tokens: 1 } } }));
    expect(spliced.at(-1)).toMatchObject({ type: "error", error: { status: 502 } });
  });

  test("the answer finishes when the stream ends after a message_stop, not at the message_stop", () => {
    const text = START + MESSAGE_STOP;
    let state = messagesStreamDecoder.initial();
    const seen: string[] = [];
    for (const frameText of text.split("\n\n").filter((f) => f !== "")) {
      const data = frameText.split("\n").find((l) => l.startsWith("data: "))!.slice(6);
      const [next, events] = messagesStreamDecoder.step(state, { event: undefined, data });
      state = next;
      seen.push(...events.map((e) => e.type));
    }
    expect(seen).toEqual(["start"]);
    expect(messagesStreamDecoder.end(state).map((e) => e.type)).toEqual(["finish"]);
  });
});
