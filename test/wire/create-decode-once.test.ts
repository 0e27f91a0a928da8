import { describe, expect, test } from "bun:test";
import { createDecodeOnce } from "../../src/wire/create-decode-once.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";
import { createParseMemo } from "../../src/pipeline/create-parse-memo.ts";
import { parseJsonBody } from "../../src/pipeline/read-json-body.ts";
import { buildConversationBody } from "../../src/bench/build-conversation-body.ts";

describe("createDecodeOnce", () => {
  test("a frozen item is decoded once: its value and its warnings come again; another item every time", () => {
    const decodeOnce = createDecodeOnce<string[]>();
    let calls = 0;
    const decode = (item: { text: string }) => (warn: (message: string) => void) => {
      calls++;
      warn(`dropped ${item.text}`);
      return [item.text];
    };
    const shared = Object.freeze({ text: "a" });
    const warnings: string[] = [];
    const first = decodeOnce(shared, decode(shared), (w) => warnings.push(w));
    const second = decodeOnce(shared, decode(shared), (w) => warnings.push(w));
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(calls).toBe(1);
    expect(warnings).toEqual(["dropped a", "dropped a"]);
    const own = { text: "b" };
    expect(decodeOnce(own, decode(own), () => {})).not.toBe(decodeOnce(own, decode(own), () => {}));
    expect(calls).toBe(3);
  });
});

describe("a Messages conversation sent again", () => {
  test("decodes to the canonical request its first sending gave, sharing the messages' parts", () => {
    const body = buildConversationBody({ targetBytes: 100 * 1024, images: true, model: "normal", stream: false, maxTokens: 64 });
    const bytes = Buffer.from(JSON.stringify(body));
    const api = wireApi("messages");
    const memo = createParseMemo({ maxChars: 1 << 22 });
    const decodeSent = () => api.client.decodeRequest(api.checkRequest(parseJsonBody(bytes, memo.scope("acct")).value));
    const fresh = api.client.decodeRequest(api.checkRequest(parseJsonBody(bytes).value));
    // First sight, kept, reused.
    const [, kept, reused] = [decodeSent(), decodeSent(), decodeSent()];
    expect(reused).toEqual(fresh);
    expect(kept).toEqual(fresh);
    expect(reused!.value.messages[2]!.content).toBe(kept!.value.messages[2]!.content);
    expect(Object.isFrozen(reused!.value.messages[2]!.content[0])).toBe(true);
  });
});
