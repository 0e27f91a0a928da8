import { describe, expect, test } from "bun:test";
import { conversationKey, responseConversationKey } from "../../src/routing/conversation-key.ts";
import { readSessionId } from "../../src/routing/read-session-id.ts";
import { assistant, request, toolCall, toolResult, user } from "./request-fixtures.ts";

const sys = (text: string) => [{ type: "text" as const, text }];
const base = request([user("fix the build")], { system: sys("You are helpful.") });

describe("conversation key", () => {
  test("later turns of one conversation share the key", () => {
    const later = request([user("fix the build"), assistant(toolCall("t1")), user(toolResult("t1", "ok")), assistant("done"), user("now add a test")], {
      system: sys("You are helpful."),
    });
    expect(conversationKey("acc", "normal", later, undefined)).toBe(conversationKey("acc", "normal", base, undefined));
  });

  test.each([
    ["another account", () => conversationKey("other", "normal", base, undefined)],
    ["another tier", () => conversationKey("acc", "smart", base, undefined)],
    ["another system prompt", () => conversationKey("acc", "normal", { ...base, system: sys("You are terse.") }, undefined)],
    ["another first message", () => conversationKey("acc", "normal", request([user("fix the tests")], { system: sys("You are helpful.") }), undefined)],
    ["a session id", () => conversationKey("acc", "normal", base, "session-1")],
  ])("%s gives another key", (_name, other) => {
    expect(other()).not.toBe(conversationKey("acc", "normal", base, undefined));
  });

  test("the per-request billing header in the system prompt does not split a conversation", () => {
    const a = { ...base, system: [{ type: "text" as const, text: "x-anthropic-billing-header: cc_version=1; cch=aaaa" }, ...sys("You are helpful.")] };
    const b = { ...base, system: [{ type: "text" as const, text: "x-anthropic-billing-header: cc_version=1; cch=bbbb" }, ...sys("You are helpful.")] };
    expect(conversationKey("acc", "normal", a, undefined)).toBe(conversationKey("acc", "normal", b, undefined));
  });

  test("previous_response_id continues the conversation recorded under that response", () => {
    const next = request([user("and then?")], { previousResponseId: "resp_1" });
    expect(conversationKey("acc", "normal", next, undefined)).toBe(responseConversationKey("acc", "normal", "resp_1"));
    expect(conversationKey("acc", "normal", next, undefined)).not.toBe(responseConversationKey("acc", "normal", "resp_2"));
  });

  test("keys are 32 hex characters, stable across calls", () => {
    expect(conversationKey("acc", "normal", base, undefined)).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("session id", () => {
  test.each([
    [{ "x-session-id": "s1" }, undefined, "s1"],
    [{ "x-claude-code-session-id": "cc" }, "user-x", "cc"],
    [{ session_id: "pi" }, undefined, "pi"],
    [{}, '{"session_id":"abc"}', '{"session_id":"abc"}'],
    [{}, undefined, undefined],
  ])("headers %p and user %p → %p", (headers, userId, expected) => {
    expect(readSessionId(new Headers(headers), request([], userId ? { user: userId } : {}))).toBe(expected);
  });
});
