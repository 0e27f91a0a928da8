import { describe, expect, test } from "bun:test";
import { normalizeToolIds } from "../../src/routing/normalize-tool-ids.ts";
import { stripForeignThinking } from "../../src/routing/strip-foreign-thinking.ts";
import { stripMessagesThinking } from "../../src/wire/messages/strip-thinking.ts";
import { stripResponsesReasoning } from "../../src/wire/responses/strip-thinking.ts";
import { assistant, request, thinking, toolCall, toolResult, user } from "./request-fixtures.ts";

const history = request([
  user("task"),
  assistant(thinking("plan"), "I will look", toolCall("t1")),
  user(toolResult("t1", "out")),
  assistant({ type: "redacted_thinking", data: "xyz" }),
  user("go on"),
  assistant(thinking("again"), toolCall("t2")),
  user(toolResult("t2", "out")),
]);

describe("stripForeignThinking (canonical)", () => {
  test("same model or no pin: the request itself", () => {
    expect(stripForeignThinking(history, "m1", "m1").value).toBe(history);
    expect(stripForeignThinking(history, "m1", null).value).toBe(history);
  });

  test("another model: every thinking and redacted-thinking part goes, empty messages too, tool pairs stay", () => {
    const { value, warnings, thinkingMustBeOff } = stripForeignThinking(history, "m2", "m1");
    const types = value.messages.map((m) => m.content.map((p) => p.type));
    expect(types).toEqual([["text"], ["text", "tool_call"], ["tool_result"], ["text"], ["tool_call"], ["tool_result"]]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("removed 3 thinking block(s)");
    expect(thinkingMustBeOff).toBe(true); // the running loop (after "go on") lost its thinking
    expect(history.messages[1]!.content).toHaveLength(3); // input untouched
  });

  test("thinking removed only before the newest user text leaves thinking allowed", () => {
    const newTurn = request([...history.messages, assistant("all done"), user("thanks, next task")]);
    expect(stripForeignThinking(newTurn, "m2", "m1").thinkingMustBeOff).toBe(false);
    const loopWithoutThinking = request([user("a"), assistant(thinking(), toolCall("t1")), user(toolResult("t1", "x")), assistant("ok"), user("b"), assistant(toolCall("t2")), user(toolResult("t2", "y"))]);
    expect(stripForeignThinking(loopWithoutThinking, "m2", "m1").thinkingMustBeOff).toBe(false);
  });

  test("on the pinned model, only the turns answered before the switch to it are cleaned", () => {
    // Turn 1 by m1, then the conversation switched to m2, which answered the rest.
    const mixed = request([user("a"), assistant(thinking("m1's"), "one"), user("b"), assistant(thinking("m2's"), toolCall("t1")), user(toolResult("t1", "x"))]);
    const { value, warnings, thinkingMustBeOff } = stripForeignThinking(mixed, "m2", "m2", 1);
    expect(value.messages.map((m) => m.content.map((p) => p.type))).toEqual([["text"], ["text"], ["text"], ["thinking", "tool_call"], ["tool_result"]]);
    expect(warnings[0]).toContain("removed 1 thinking block(s) of turns answered before the switch to m2");
    expect(thinkingMustBeOff).toBe(false); // the running loop keeps m2's own thinking
    expect(stripForeignThinking(mixed, "m2", "m2", 0).value).toBe(mixed);
    // Another model than the pin: everything goes, whatever the count.
    expect(stripForeignThinking(mixed, "m1", "m2", 1).warnings[0]).toContain("removed 2 thinking block(s)");
  });

  test("a history without thinking is returned as is", () => {
    const plain = request([user("a"), assistant("b")]);
    expect(stripForeignThinking(plain, "m2", "m1").value).toBe(plain);
  });
});

describe("normalizeToolIds", () => {
  test("valid ids are kept (same object)", () => {
    expect(normalizeToolIds(history, "chat").value).toBe(history);
  });

  test("invalid or too long ids are rewritten consistently for call and result", () => {
    const long = `ws_${"a".repeat(60)}`;
    const req = request([
      user("x"),
      assistant(toolCall("functions.Search:3"), toolCall(long)),
      user(toolResult("functions.Search:3", "r1"), toolResult(long, "r2")),
    ]);
    const { value, renamed } = normalizeToolIds(req, "chat");
    const [a, b] = value.messages[1]!.content as unknown as Array<{ id: string }>;
    const [ra, rb] = value.messages[2]!.content as unknown as Array<{ callId: string }>;
    expect([ra!.callId, rb!.callId]).toEqual([a!.id, b!.id]);
    for (const id of [a!.id, b!.id]) expect(id).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(a!.id).not.toBe(b!.id);
    expect(renamed.size).toBe(2);
    // Responses allows 64 characters: the 63-character id passes unchanged.
    expect(normalizeToolIds(req, "responses").renamed.has(long)).toBe(false);
  });
});

describe("raw bodies", () => {
  test("Messages: thinking blocks leave assistant messages only", () => {
    const body = {
      model: "normal",
      messages: [
        { role: "user", content: [{ type: "text", text: "thinking about it" }] },
        { role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }, { type: "tool_use", id: "t1", name: "x", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
        { role: "assistant", content: [{ type: "redacted_thinking", data: "d" }] },
        { role: "assistant", content: "plain string" },
      ],
    };
    const { value, removed, thinkingMustBeOff } = stripMessagesThinking(body);
    expect(removed).toBe(2);
    expect(thinkingMustBeOff).toBe(false); // the body ends with an assistant message, no loop runs
    expect(value.messages).toEqual([body.messages[0], { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: {} }] }, body.messages[2], body.messages[4]]);
    expect(value.model).toBe("normal");
    const clean = { messages: [body.messages[0]] };
    expect(stripMessagesThinking(clean).value).toBe(clean);
  });

  test("Messages: thinking removed inside the running tool loop asks for thinking off", () => {
    const body = {
      messages: [
        { role: "user", content: "fix it" },
        { role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }, { type: "tool_use", id: "t1", name: "x", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
      ],
    };
    expect(stripMessagesThinking(body)).toMatchObject({ removed: 1, thinkingMustBeOff: true });
  });

  test("Messages: with a count, only the first assistant turns are cleaned", () => {
    const first = { role: "assistant", content: [{ type: "thinking", thinking: "t1", signature: "s1" }, { type: "text", text: "one" }] };
    const second = { role: "assistant", content: [{ type: "thinking", thinking: "t2", signature: "s2" }, { type: "text", text: "two" }] };
    const body = { messages: [{ role: "user", content: "a" }, first, { role: "user", content: "b" }, second, { role: "user", content: "c" }] };
    const { value, removed } = stripMessagesThinking(body, 1);
    expect(removed).toBe(1);
    expect(value.messages).toEqual([body.messages[0], { role: "assistant", content: [{ type: "text", text: "one" }] }, body.messages[2], second, body.messages[4]]);
    expect(stripMessagesThinking(body, 0).value).toBe(body);
  });

  test("Responses: reasoning input items are removed", () => {
    const body = {
      input: [
        { type: "message", role: "user", content: "hi" },
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" },
        { type: "function_call", call_id: "c1", name: "f", arguments: "{}" },
      ],
      store: false,
    };
    const { value, removed } = stripResponsesReasoning(body);
    expect(removed).toBe(1);
    expect((value.input as Array<{ type: string }>).map((i) => i.type)).toEqual(["message", "function_call"]);
    const plain = { input: "hello" };
    expect(stripResponsesReasoning(plain).value).toBe(plain);
  });
});
