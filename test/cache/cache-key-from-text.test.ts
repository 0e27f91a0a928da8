import { describe, expect, test } from "bun:test";
import { buildResponseCacheKey } from "../../src/cache/build-response-cache-key.ts";
import { parseJsonBody } from "../../src/pipeline/read-json-body.ts";

const body = {
  model: "normal",
  max_tokens: 64,
  tools: [{ name: "run", input_schema: { type: "object", properties: { stream: { type: "boolean" }, stream_options: { type: "object" } } } }],
  messages: [{ role: "user", content: 'say "stream": true, then {"stream":false}' }],
};
/** The key as the pipeline computes it: from the body's bytes as read. */
const keyOfText = (text: string) => {
  const read = parseJsonBody(Buffer.from(text));
  return buildResponseCacheKey("acct_a", "chat", read.value as Record<string, unknown>, read);
};
const keyOfBody = (value: Record<string, unknown>) => buildResponseCacheKey("acct_a", "chat", value);
const withoutStream = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([k]) => k !== "stream" && k !== "stream_options"));
/** The same body made big (the pipeline then notes where its members lie, to send it on as it came). */
const big = (value: Record<string, unknown>, content = "x".repeat(20_000)) => ({ ...value, messages: [{ role: "user", content }] });

describe("the cache key from the text as sent", () => {
  test.each([
    ["no stream member", body],
    ["stream last (how SDKs stream)", { ...body, stream: true }],
    ["stream and stream_options last", { ...body, stream: true, stream_options: { include_usage: true } }],
    ["stream first", { stream: false, ...body }],
    ["stream_options first, stream last", { stream_options: { include_usage: true }, ...body, stream: true }],
    ["stream in the middle", { model: "normal", max_tokens: 64, stream: true, tools: body.tools, messages: body.messages }],
    ["stream alone", { stream: true }],
  ])("compact text gives the key the parsed body gives: %s", (_name, value) => {
    for (const sized of [value, big(value), big(value, "naïve 日本語 \u{1F600} ".repeat(2_000))]) {
      const text = JSON.stringify(sized);
      expect(keyOfText(text)).toBe(keyOfBody(sized));
      expect(keyOfText(text)).toBe(keyOfText(JSON.stringify(withoutStream(sized))));
    }
  });

  test("a streamed and a whole request share a key, whitespace or not", () => {
    for (const value of [body, big(body)]) {
      const whole = JSON.stringify(value, null, 2);
      const streamed = `${whole.slice(0, -2)},\n  "stream" : true ,\n "stream_options": {"include_usage": true}\n}\n`;
      expect(keyOfText(streamed)).toBe(keyOfText(whole));
      const middle = `{"stream": true, ${whole.slice(1)}`;
      expect(keyOfText(middle)).toBe(keyOfText(whole));
    }
  });

  test("requests that differ get different keys, wherever the difference is", () => {
    const base = JSON.stringify({ ...body, stream: true });
    const keys = new Set([
      keyOfText(base),
      keyOfText(JSON.stringify({ ...body, max_tokens: 65, stream: true })),
      keyOfText(JSON.stringify({ ...body, messages: [{ role: "user", content: "other" }], stream: true })),
      keyOfText(JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true }, temperature: 0 })),
      keyOfText(JSON.stringify({ ...body, tools: [], stream: true })),
      keyOfText(JSON.stringify(big({ ...body, stream: true }))),
      keyOfText(JSON.stringify(big({ ...body, stream: true }, `${"x".repeat(19_999)}y`))),
      // The same members in another order: another text, another key.
      keyOfText(JSON.stringify({ max_tokens: 64, model: "normal", tools: body.tools, messages: body.messages })),
      buildResponseCacheKey("acct_b", "chat", JSON.parse(base) as Record<string, unknown>, parseJsonBody(Buffer.from(base))),
      buildResponseCacheKey("acct_a", "messages", JSON.parse(base) as Record<string, unknown>, parseJsonBody(Buffer.from(base))),
    ]);
    expect(keys.size).toBe(10);
  });

  test("a \"stream\" inside a value is never taken for the member", () => {
    const nested = { model: "normal", messages: [{ role: "user", content: "x" }], metadata: { stream: true } };
    expect(keyOfText(JSON.stringify(nested))).not.toBe(keyOfText(JSON.stringify({ ...nested, metadata: {} })));
    const tricky = '{"model":"normal","stream":true,"metadata":{"stream":false}}';
    expect(keyOfText(tricky)).toBe(keyOfBody({ model: "normal", metadata: { stream: false } }));
    const quoted = '{"messages":[{"role":"user","content":"a \\"stream\\""}],"stream":true}';
    expect(keyOfText(quoted)).toBe(keyOfBody({ messages: [{ role: "user", content: 'a "stream"' }] }));
  });

  test("a repeated member gives a key of its own (a miss), never another request's", () => {
    const repeated = '{"model":"a","max_tokens":1,"model":"b"}';
    expect(keyOfText(repeated)).not.toBe(keyOfText('{"model":"b","max_tokens":1}'));
    expect(keyOfText(repeated)).not.toBe(keyOfText('{"max_tokens":1,"model":"b"}'));
    expect(keyOfText(repeated)).not.toBe(keyOfText('{"model":"a","max_tokens":1}'));
  });

  test("a stream member spelt with escapes is hashed (a miss), never mistaken for another body", () => {
    expect(keyOfText('{"model":"normal","\\u0073tream":true}')).not.toBe(keyOfText('{"model":"normal","stream":true}'));
  });
});
