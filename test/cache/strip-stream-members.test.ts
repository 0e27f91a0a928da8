import { describe, expect, test } from "bun:test";
import { buildResponseCacheKey } from "../../src/cache/build-response-cache-key.ts";
import { stripStreamMembers } from "../../src/cache/strip-stream-members.ts";

const body = {
  model: "normal",
  max_tokens: 64,
  tools: [{ name: "run", input_schema: { type: "object", properties: { stream: { type: "boolean" }, stream_options: { type: "object" } } } }],
  messages: [{ role: "user", content: 'say "stream": true, then {"stream":false}' }],
};
const keyOfText = (text: string) => buildResponseCacheKey("acct_a", "chat", JSON.parse(text) as Record<string, unknown>, text);
const keyOfBody = (value: Record<string, unknown>) => buildResponseCacheKey("acct_a", "chat", value);

describe("the cache key from the text as sent", () => {
  test.each([
    ["no stream member", body],
    ["stream last (how SDKs stream)", { ...body, stream: true }],
    ["stream and stream_options last", { ...body, stream: true, stream_options: { include_usage: true } }],
    ["stream first", { stream: false, ...body }],
    ["stream_options first, stream last", { stream_options: { include_usage: true }, ...body, stream: true }],
    ["stream in the middle (serialised instead)", { model: "normal", max_tokens: 64, stream: true, tools: body.tools, messages: body.messages }],
    ["stream alone", { stream: true }],
  ])("compact text gives the key the parsed body gives: %s", (_name, value) => {
    const text = JSON.stringify(value);
    expect(keyOfText(text)).toBe(keyOfBody(value));
    expect(keyOfText(text)).toBe(keyOfText(JSON.stringify(Object.fromEntries(Object.entries(value).filter(([k]) => k !== "stream" && k !== "stream_options")))));
  });

  test("a streamed and a whole request share a key, whitespace or not", () => {
    const whole = JSON.stringify(body, null, 2);
    const streamed = `${whole.slice(0, -2)},\n  "stream" : true ,\n "stream_options": {"include_usage": true}\n}\n`;
    expect(keyOfText(streamed)).toBe(keyOfText(whole));
  });

  test("requests that differ get different keys, wherever the difference is", () => {
    const base = JSON.stringify({ ...body, stream: true });
    const keys = new Set([
      keyOfText(base),
      keyOfText(JSON.stringify({ ...body, max_tokens: 65, stream: true })),
      keyOfText(JSON.stringify({ ...body, messages: [{ role: "user", content: "other" }], stream: true })),
      keyOfText(JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true }, temperature: 0 })),
      keyOfText(JSON.stringify({ ...body, tools: [], stream: true })),
      buildResponseCacheKey("acct_b", "chat", JSON.parse(base) as Record<string, unknown>, base),
      buildResponseCacheKey("acct_a", "messages", JSON.parse(base) as Record<string, unknown>, base),
    ]);
    expect(keys.size).toBe(7);
  });

  test("a \"stream\" inside a value is never cut as the member", () => {
    const nested = { model: "normal", messages: [{ role: "user", content: "x" }], metadata: { stream: true } };
    const text = JSON.stringify(nested);
    expect(stripStreamMembers(text, nested)).toBe(text);
    expect(keyOfText(text)).not.toBe(keyOfText(JSON.stringify({ ...nested, metadata: {} })));
    // The text's last "stream" is a nested one when the member's value does not match it: serialised instead.
    const tricky = '{"model":"normal","stream":true,"metadata":{"stream":false}}';
    expect(stripStreamMembers(tricky, JSON.parse(tricky) as Record<string, unknown>)).toBeUndefined();
    expect(keyOfText(tricky)).toBe(keyOfBody({ model: "normal", metadata: { stream: false } }));
  });

  test("a string that ends in an escaped quote before the member is not taken for a member's start", () => {
    const text = '{"messages":[{"role":"user","content":"a \\"stream\\""}],"stream":true}';
    const value = JSON.parse(text) as Record<string, unknown>;
    expect(stripStreamMembers(text, value)).toBe('{"messages":[{"role":"user","content":"a \\"stream\\""}]}');
  });

  test("a repeated member gives a key of its own (a miss), never another request's", () => {
    const repeated = '{"model":"normal","stream":true,"stream":false}';
    expect(keyOfText(repeated)).not.toBe(keyOfText('{"model":"normal"}'));
  });
});
