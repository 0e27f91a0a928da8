import { describe, expect, test } from "bun:test";
import { createEventFramer } from "../../src/upstream/passthrough/create-event-framer.ts";
import { createEventInspector } from "../../src/upstream/passthrough/create-event-inspector.ts";
import { forEachEvent, type EventView } from "../../src/upstream/passthrough/for-each-event.ts";
import type { Verdict } from "../../src/wire/stream-inspector.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";

const push = (chunks: string[], max = 1024): { out: string[]; rest: string; overflowed: boolean } => {
  const framer = createEventFramer(max);
  const out = chunks.map((chunk) => framer.push(Buffer.from(chunk)).toString());
  return { out, rest: framer.rest().toString(), overflowed: framer.overflowed };
};

describe("createEventFramer: only whole events go on", () => {
  test.each<[string, string[], string[], string]>([
    ["whole events pass as they came", ["data: 1\n\n", "data: 2\n\ndata: 3\n\n"], ["data: 1\n\n", "data: 2\n\ndata: 3\n\n"], ""],
    ["an event split across chunks waits for its end", ["data: 1\n\ndata: {\"a", "\":1}\n", "\ndata: 3"], ["data: 1\n\n", "", 'data: {"a":1}\n\n'], "data: 3"],
    ["a blank line split \\n | \\n", ["data: 1\n", "\ndata: 2\n\n"], ["", "data: 1\n\ndata: 2\n\n"], ""],
    ["a blank line split \\n | \\r\\n", ["data: 1\r\n", "\r\ndata: 2"], ["", "data: 1\r\n\r\n"], "data: 2"],
    ["a blank line split \\n\\r | \\n", ["data: 1\r\n\r", "\ndata: 2"], ["", "data: 1\r\n\r\n"], "data: 2"],
    ["CRLF events", ["event: a\r\ndata: 1\r\n\r\nevent: b\r\n"], ["event: a\r\ndata: 1\r\n\r\n"], "event: b\r\n"],
  ])("%s", (_name, chunks, expected, rest) => {
    const result = push(chunks);
    expect(result.out).toEqual(expected);
    expect(result.rest).toBe(rest);
  });

  test("an event growing past the limit is dropped and flagged, without holding more than the limit", () => {
    const result = push(["data: 1\n\ndata: {", "x".repeat(600), "x".repeat(600), "\n\n"]);
    expect(result.out).toEqual(["data: 1\n\n", "", "", ""]);
    expect(result.overflowed).toBe(true);
    expect(result.rest).toBe("");
  });
});

describe("forEachEvent", () => {
  test("names, joined data lines, comments and the positions of each event", () => {
    const bytes = Buffer.from(': keep\n\nevent: a\ndata: {"x":\ndata: 1}\n\ndata:[DONE]\n\nevent: last\ndata: {}');
    const seen: EventView[] = [];
    forEachEvent(bytes, (event) => {
      seen.push(event);
      return true;
    });
    expect(seen.map(({ name, data }) => ({ name, data }))).toEqual([
      { name: undefined, data: undefined },
      { name: "a", data: '{"x":\n1}' },
      { name: undefined, data: "[DONE]" },
      { name: "last", data: "{}" },
    ]);
    expect(bytes.subarray(seen[1]!.start, seen[1]!.end).toString()).toBe('event: a\ndata: {"x":\ndata: 1}\n\n');
  });

  test("a name repeated in a later read is the same name, and any other spelling is read as written", () => {
    const names = (text: string): (string | undefined)[] => {
      const seen: (string | undefined)[] = [];
      forEachEvent(Buffer.from(text), (event) => {
        seen.push(event.name);
        return true;
      });
      return seen;
    };
    // The name of the read before is given again without a new string: the names must still be exact.
    expect(names("event: content_block_delta\ndata: 1\n\n")).toEqual(["content_block_delta"]);
    expect(
      names(
        "event: content_block_delta\ndata: 2\n\nevent:content_block_delta\ndata: 3\n\nevent:  content_block_delta \r\ndata: 4\n\n" +
          "event: content_block_deltas\ndata: 5\n\nevent: content_block_delt\ndata: 6\n\nevent: message_delta\ndata: 7\n\nevent: message_start\ndata: 8\n\n" +
          "event:\ndata: 9\n\nevent: message_start\ndata: 10\n\n",
      ),
    ).toEqual(["content_block_delta", "content_block_delta", "content_block_delta", "content_block_deltas", "content_block_delt", "message_delta", "message_start", "", "message_start"]);
  });
});

describe("createEventInspector", () => {
  const steps = (format: "messages" | "chat" | "responses", events: Array<[string | undefined, string]>, hide = false): Verdict[] => {
    const inspector = createEventInspector(wireApi(format), hide);
    return events.map(([name, data]) => inspector.step(name, data));
  };

  test.each<[string, "messages" | "chat" | "responses", Array<[string | undefined, string]>, Verdict[]]>([
    ["Messages: a clean stream", "messages", [["message_start", '{"type":"message_start","message":{"usage":{"input_tokens":5}}}'], ["ping", '{"type":"ping"}'], ["message_stop", '{"type":"message_stop"}']], ["pass", "pass", "stopped"]],
    ["Messages: garbage in braces", "messages", [["content_block_delta", '{"type":"x",oops}']], ["malformed"]],
    ["Messages: not JSON at all", "messages", [["content_block_delta", "oops"]], ["malformed"]],
    ["Messages: a JSON value that is not an object", "messages", [["content_block_delta", "42"]], ["malformed"]],
    ["Messages: the upstream's error event", "messages", [["error", '{"type":"error","error":{"type":"overloaded_error","message":"busy"}}']], ["failed"]],
    ["Chat: [DONE] ends it", "chat", [[undefined, '{"choices":[{"delta":{"content":"a"}}]}'], [undefined, "[DONE]"]], ["pass", "stopped"]],
    ["Chat: an error chunk", "chat", [[undefined, '{"error":{"message":"busy"}}']], ["failed"]],
    ["Chat: a filter ending", "chat", [[undefined, '{"choices":[{"delta":{},"finish_reason":"content_filter"}]}']], ["filtered"]],
    ["Chat: the usage chunk, hidden", "chat", [[undefined, '{"choices":[],"usage":{"prompt_tokens":1}}']], ["hide"]],
    ["Responses: completed", "responses", [["response.output_text.delta", '{"type":"response.output_text.delta","delta":"a"}'], ["response.completed", '{"type":"response.completed","response":{"usage":{"input_tokens":3}}}']], ["pass", "stopped"]],
    ["Responses: failed", "responses", [["response.failed", '{"type":"response.failed","response":{"error":{"message":"x"}}}']], ["failed"]],
    ["Responses: a filter's incomplete", "responses", [["response.incomplete", '{"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"}}}']], ["filtered"]],
    ["Responses: incomplete for length", "responses", [["response.incomplete", '{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"}}}']], ["stopped"]],
    ["Responses: an event without a type", "responses", [[undefined, '{"delta":"a"}']], ["malformed"]],
  ])("%s", (_name, format, events, expected) => {
    expect(steps(format, events, true)).toEqual(expected);
  });

  test("usage and counted text: Messages start and delta, Chat chunk, Responses completed", () => {
    const messages = createEventInspector(wireApi("messages"), false);
    messages.step("message_start", '{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":7,"output_tokens":1}}}');
    messages.step("content_block_delta", '{"type":"content_block_delta","delta":{"type":"text_delta","text":"alpha alpha "}}');
    expect(messages.startUsage).toMatchObject({ inputTokens: 12, cacheReadTokens: 7, outputTokens: 1 });
    expect(messages.usage).toBeUndefined();
    expect(messages.text.tokens()).toBe(2);
    messages.step("message_delta", '{"type":"message_delta","usage":{"output_tokens":9}}');
    // The answer's usage is known once its last message has stopped.
    expect(messages.usage).toBeUndefined();
    expect(messages.step("message_stop", '{"type":"message_stop"}')).toBe("stopped");
    expect(messages.between).toBe(true);
    expect(messages.usage).toMatchObject({ inputTokens: 12, outputTokens: 9 });
    // Another message in the same stream: the stream goes on, and the usage adds up.
    messages.step("message_start", '{"type":"message_start","message":{"usage":{"input_tokens":20,"output_tokens":1}}}');
    expect(messages.between).toBe(false);
    expect(messages.usage).toBeUndefined();
    messages.step("message_delta", '{"type":"message_delta","usage":{"output_tokens":4}}');
    messages.step("message_stop", '{"type":"message_stop"}');
    expect(messages.usage).toMatchObject({ inputTokens: 32, outputTokens: 13 });
    expect(messages.startUsage).toMatchObject({ inputTokens: 12 });

    const chat = createEventInspector(wireApi("chat"), false);
    chat.step(undefined, '{"choices":[{"delta":{"tool_calls":[{"function":{"name":"get_weather","arguments":"{\\"city\\""}}]}}]}');
    chat.step(undefined, '{"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":6}}');
    expect(chat.usage).toMatchObject({ inputTokens: 4, outputTokens: 6 });
    expect(chat.text.tokens()).toBeGreaterThan(0);

    const responses = createEventInspector(wireApi("responses"), false);
    responses.step(undefined, '{"type":"response.function_call_arguments.delta","delta":"{\\"a\\":1}"}');
    responses.step(undefined, '{"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":4}}}');
    expect(responses.usage).toMatchObject({ inputTokens: 3, outputTokens: 4 });
    expect(responses.text.tokens()).toBeGreaterThan(0);
  });

  test("text outside ASCII is counted as the UTF-8 it is, and an upstream's error message keeps it", () => {
    // Events reach the inspector read as Latin-1, one character per byte, as forEachEvent reads them.
    const latin1 = (json: string): string => Buffer.from(json, "utf8").toString("latin1");
    const chat = createEventInspector(wireApi("chat"), false);
    chat.step(undefined, latin1('{"choices":[{"delta":{"content":"我们的网关把请求路由到合适的模型"}}]}'));
    expect(chat.text.tokens()).toBeGreaterThanOrEqual(10);
    expect(chat.text.tokens()).toBeLessThanOrEqual(14);
    const messages = createEventInspector(wireApi("messages"), false);
    expect(messages.step("error", latin1('{"type":"error","error":{"type":"overloaded_error","message":"surchargé — réessayez"}}'))).toBe("failed");
    expect(messages.failure).toBe("surchargé — réessayez");
  });
  test("Messages: a repeated start of the open message is hidden, its larger usage billed; a start after a stop or of another message passes", () => {
    const messages = createEventInspector(wireApi("messages"), false);
    const start = (id: string, input: number) => `{"type":"message_start","message":{"id":"${id}","usage":{"input_tokens":${input},"output_tokens":1}}}`;
    expect(messages.step("message_start", start("msg_a", 17))).toBe("pass");
    expect(messages.step("message_start", start("msg_a", 20))).toBe("hide");
    expect(messages.startUsage).toMatchObject({ inputTokens: 20 });
    messages.step("message_delta", '{"type":"message_delta","usage":{"output_tokens":9}}');
    messages.step("message_stop", '{"type":"message_stop"}');
    expect(messages.usage).toMatchObject({ inputTokens: 20, outputTokens: 9 });
    expect(messages.step("message_start", start("msg_a", 5))).toBe("pass");
    expect(messages.step("message_start", start("msg_b", 5))).toBe("pass");
    expect(messages.replacement).toBeUndefined();
  });

  test("Responses: ids rotated from event to event are set back to the response's and the item's first; a new response keeps its own", () => {
    const responses = createEventInspector(wireApi("responses"), false);
    const latin1 = (json: string): string => Buffer.from(json, "utf8").toString("latin1");
    const sent = (data: string): string | undefined => {
      responses.step(undefined, latin1(data));
      return responses.replacement === undefined ? undefined : Buffer.from(responses.replacement, "latin1").toString("utf8");
    };
    expect(sent('{"type":"response.created","response":{"id":"r1"}}')).toBeUndefined();
    expect(sent('{"type":"response.in_progress","response":{"id":"r2"}}')).toBe('{"type":"response.in_progress","response":{"id":"r1"}}');
    expect(sent('{"type":"response.output_item.added","output_index":0,"item":{"id":"i1","type":"message"}}')).toBeUndefined();
    expect(sent('{"type":"response.output_text.delta","output_index":0,"item_id":"i1","delta":"é"}')).toBeUndefined();
    expect(sent('{"type":"response.output_text.delta","output_index":0,"item_id":"i2","delta":"👋 ü"}')).toBe('{"type":"response.output_text.delta","output_index":0,"item_id":"i1","delta":"👋 ü"}');
    expect(sent('{"type":"response.output_item.done","output_index":0,"item":{"id":"i3","type":"message"}}')).toBe('{"type":"response.output_item.done","output_index":0,"item":{"id":"i1","type":"message"}}');
    expect(sent('{"type":"response.completed","response":{"id":"r3","output":[{"id":"i4"}]}}')).toBe('{"type":"response.completed","response":{"id":"r1","output":[{"id":"i4"}]}}');
    // The next response of the stream is another one, with ids of its own.
    expect(sent('{"type":"response.created","response":{"id":"r9"}}')).toBeUndefined();
    expect(sent('{"type":"response.output_text.delta","output_index":0,"item_id":"i9","delta":"a"}')).toBeUndefined();
    expect(sent('{"type":"response.completed","response":{"id":"r9"}}')).toBeUndefined();
  });
});
