import { describe, expect, test } from "bun:test";
import { Type as t } from "@sinclair/typebox";
import { compileBodyCheck } from "../../src/wire/compile-body-check.ts";
import { MessagesRequestSchema } from "../../src/wire/messages/schema.ts";

const checkMessages = compileBodyCheck(MessagesRequestSchema, "messages");

/** A message whose `role` counts its reads: frozen, as the parse memo shares one. */
function watchedMessage(frozen: boolean): { message: object; reads: () => number } {
  let reads = 0;
  const message = {
    get role() {
      reads++;
      return "user";
    },
    content: [{ type: "text", text: "hi" }],
  };
  return { message: frozen ? Object.freeze(message) : message, reads: () => reads };
}

describe("compileBodyCheck with a conversation's shared elements", () => {
  test("a frozen message (one the parse memo shares) is checked once, not on every turn that sends it again", () => {
    const { message, reads } = watchedMessage(true);
    for (let turn = 0; turn < 3; turn++) checkMessages({ max_tokens: 5, messages: [message, { role: "assistant", content: "ok" }] });
    expect(reads()).toBe(1);
  });

  test("a message not frozen is checked every time: it may have changed", () => {
    const { message, reads } = watchedMessage(false);
    for (let turn = 0; turn < 3; turn++) checkMessages({ max_tokens: 5, messages: [message] });
    expect(reads()).toBe(3);
    const changing: Record<string, unknown> = { role: "user", content: "hi" };
    checkMessages({ max_tokens: 5, messages: [changing] });
    changing.role = 7;
    expect(() => checkMessages({ max_tokens: 5, messages: [changing] })).toThrow("`messages[0].role`: expected a string");
  });

  test("a frozen message that fails is refused every time, naming the field as the whole schema does", () => {
    const bad = Object.freeze({ role: "user", content: 3 });
    for (let turn = 0; turn < 2; turn++) {
      expect(() => checkMessages({ max_tokens: 5, messages: [{ role: "user", content: "a" }, bad] })).toThrow("`messages[1].content`: expected a string or an array");
    }
  });

  test("the rest of the body is checked as before: members missing or of the wrong type are named", () => {
    const message = Object.freeze({ role: "user", content: "hi" });
    checkMessages({ max_tokens: 5, messages: [message] });
    expect(() => checkMessages({ messages: [message] })).toThrow("`max_tokens`: field required");
    expect(() => checkMessages({ max_tokens: 5, messages: message })).toThrow("`messages`: expected an array");
    expect(() => checkMessages({ max_tokens: 5 })).toThrow("`messages`: field required");
    expect(() => checkMessages({ max_tokens: 5, messages: [message], stream: "yes" })).toThrow("`stream`: expected a boolean");
    expect(checkMessages({ max_tokens: 5, messages: [message], extra: 1 })).toMatchObject({ extra: 1 });
  });

  test("a schema whose member is optional, or not an array, is checked whole", () => {
    const optional = compileBodyCheck(t.Object({ messages: t.Optional(t.Array(t.Object({ role: t.String() }))) }), "messages");
    expect(optional({})).toEqual({});
    let reads = 0;
    const message = Object.freeze({
      get role() {
        reads++;
        return "user";
      },
    });
    for (let turn = 0; turn < 2; turn++) optional({ messages: [message] });
    expect(reads).toBe(2);
    const scalar = compileBodyCheck(t.Object({ messages: t.String() }), "messages");
    expect(() => scalar({ messages: 1 })).toThrow("`messages`: expected a string");
  });
});
