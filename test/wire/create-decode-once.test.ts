import { describe, expect, test } from "bun:test";
import { createDecodeOnce } from "../../src/wire/create-decode-once.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";
import { createParseMemo } from "../../src/pipeline/create-parse-memo.ts";
import { parseJsonBody } from "../../src/pipeline/read-json-body.ts";
import { buildConversationBody } from "../../src/bench/build-conversation-body.ts";

describe("createDecodeOnce", () => {
  test("a frozen item is decoded once; an item whose decoding warned, or that is not frozen, every time", () => {
    const decodeOnce = createDecodeOnce<string[]>();
    let calls = 0;
    const decode = (item: { text: string; warn?: boolean }) => (warnings: string[]) => {
      calls++;
      if (item.warn) warnings.push(`dropped ${item.text}`);
      return [item.text];
    };
    const shared = Object.freeze({ text: "a" });
    const first = decodeOnce(shared, decode(shared), () => {});
    expect(decodeOnce(shared, decode(shared), () => {})).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(calls).toBe(1);
    // A warning may name the item's place in the request: it is decoded, and warns, every time.
    const warned = Object.freeze({ text: "b", warn: true });
    const warnings: string[] = [];
    expect(decodeOnce(warned, decode(warned), (w) => warnings.push(w))).not.toBe(decodeOnce(warned, decode(warned), (w) => warnings.push(w)));
    expect(warnings).toEqual(["dropped b", "dropped b"]);
    const own = { text: "c" };
    expect(decodeOnce(own, decode(own), () => {})).not.toBe(decodeOnce(own, decode(own), () => {}));
    expect(calls).toBe(5);
  });

  test("known: the value kept for a frozen item decoded before, and nothing for any other item", () => {
    const decodeOnce = createDecodeOnce<string[]>();
    const shared = Object.freeze({ text: "a" });
    expect(decodeOnce.known(shared)).toBeUndefined();
    const value = decodeOnce(shared, () => ["a"], () => {});
    expect(decodeOnce.known(shared)).toBe(value);
    const warned = Object.freeze({ text: "b" });
    decodeOnce(
      warned,
      (warnings) => {
        warnings.push("dropped b");
        return ["b"];
      },
      () => {},
    );
    expect(decodeOnce.known(warned)).toBeUndefined();
    const own = { text: "c" };
    decodeOnce(own, () => ["c"], () => {});
    expect(decodeOnce.known(own)).toBeUndefined();
    expect(decodeOnce.known(null)).toBeUndefined();
    expect(decodeOnce.known("a")).toBeUndefined();
  });
});

/**
 * `body` in `format` decoded as the gateway decodes it when first sent, then kept, then reused (its
 * pieces from one account's parse memo), beside the decode of a body parsed whole.
 */
function decodeThrice(format: "messages" | "chat" | "responses", body: Record<string, unknown>) {
  const text = JSON.stringify(body);
  expect(text.length).toBeGreaterThan(16 * 1024);
  const api = wireApi(format);
  const memo = createParseMemo({ maxChars: 1 << 22 });
  const decodeSent = () => api.client.decodeRequest(api.checkRequest(parseJsonBody(Buffer.from(text), memo.scope("acct")).value)).value;
  const fresh = api.client.decodeRequest(api.checkRequest(parseJsonBody(Buffer.from(text)).value)).value;
  const [, kept, reused] = [decodeSent(), decodeSent(), decodeSent()];
  // Sent again, the same canonical request.
  expect(kept).toEqual(fresh);
  expect(reused).toEqual(fresh);
  return { kept: kept!, reused: reused! };
}

describe("a conversation sent again decodes to the canonical request its first sending gave", () => {
  test("Messages: the messages' parts shared, frozen", () => {
    const { kept, reused } = decodeThrice("messages", buildConversationBody({ targetBytes: 100 * 1024, images: true, model: "normal", stream: false, maxTokens: 64 }));
    expect(reused.messages[2]!.content).toBe(kept.messages[2]!.content);
    expect(Object.isFrozen(reused.messages[2]!.content[0])).toBe(true);
    // The messages themselves are kept whole: no new object a message on a turn that sends them again.
    expect(reused.messages.every((message, i) => message === kept.messages[i] && Object.isFrozen(message))).toBe(true);
  });

  test("Chat: each message's parts and each tool result shared, frozen, and each message kept whole", () => {
    const messages: unknown[] = [{ role: "system", content: "Review carefully. ".repeat(100) }];
    for (let i = 0; i < 30; i++) {
      messages.push({ role: "user", content: [{ type: "text", text: `Part ${i}: ${"let x = 1; ".repeat(60)}` }] });
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read", arguments: `{"part":${i}}` } }] });
      messages.push({ role: "tool", tool_call_id: `call_${i}`, content: `contents of part ${i} `.repeat(20) });
    }
    const { kept, reused } = decodeThrice("chat", { model: "normal", messages });
    const assistant = reused.messages.findIndex((m) => m.role === "assistant");
    expect(reused.messages[assistant]!.content).toBe(kept.messages[assistant]!.content);
    const result = reused.messages[assistant + 1]!.content[0]!;
    expect(result).toBe(kept.messages[assistant + 1]!.content[0]!);
    expect(Object.isFrozen(result)).toBe(true);
    // The messages are kept whole, a run of tool messages as its one user message of results.
    expect(reused.messages.every((message, i) => message === kept.messages[i] && Object.isFrozen(message))).toBe(true);
  });

  test("Responses: each input item's parts shared, frozen, and each turn kept whole", () => {
    const input: unknown[] = [{ role: "developer", content: "Review carefully. ".repeat(100) }];
    for (let i = 0; i < 30; i++) {
      input.push({ role: "user", content: [{ type: "input_text", text: `Part ${i}: ${"let x = 1; ".repeat(60)}` }] });
      input.push({ type: "function_call", call_id: `call_${i}`, name: "read", arguments: `{"part":${i}}` });
      input.push({ type: "function_call_output", call_id: `call_${i}`, output: `contents of part ${i} `.repeat(20) });
    }
    const { kept, reused } = decodeThrice("responses", { model: "normal", input, store: false });
    const user = reused.messages.findIndex((m) => m.role === "user");
    expect(reused.messages[user]!.content[0]).toBe(kept.messages[user]!.content[0]);
    expect(Object.isFrozen(reused.messages[user]!.content[0])).toBe(true);
    // Each turn (a run of items of one role) is kept whole: no new object a turn on a sending again.
    expect(reused.messages.every((message, i) => message === kept.messages[i] && Object.isFrozen(message))).toBe(true);
  });
});
