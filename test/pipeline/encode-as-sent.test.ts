import { describe, expect, test } from "bun:test";
import type { JsonObject } from "../../src/canonical/json-object.ts";
import { parseJsonText } from "../../src/pipeline/parse-json-text.ts";
import { encodeAsSent, readSentBody, type SentBody } from "../../src/pipeline/encode-as-sent.ts";

/** What each body parsed here was sent as, as the pipeline reads it beside the body. */
const sentAs = new WeakMap<JsonObject, SentBody | undefined>();

function parse(text: string, bytes?: Uint8Array): JsonObject {
  const { value, members } = parseJsonText(text);
  const body = value as JsonObject;
  sentAs.set(body, members ? readSentBody(body, text, members, bytes) : undefined);
  return body;
}

/** `body` (made from `sent`) encoded with what `sent` was sent as. */
const encode = (body: JsonObject, sent: JsonObject): string | Blob => encodeAsSent(body, sentAs.get(sent));

/** Without the client's bytes the body comes as one string. */
function stringifyAsSent(body: JsonObject, sent: JsonObject): string {
  const out = encode(body, sent);
  if (typeof out !== "string") throw new Error("expected a string");
  return out;
}

const CONVERSATION = {
  model: "normal",
  max_tokens: 256,
  system: [{ type: "text", text: 'Be brief. {"not": ["a", "member"]}, "model": "x"' }],
  messages: [
    { role: "user", content: [{ type: "text", text: "quotes \" and \\ backslashes \\\" [ { ] }" }] },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { path: "/a", nested: { deep: [1, [2, [3]]] } } }] },
  ],
  metadata: { user_id: "u1" },
  stream: false,
  temperature: 0.5,
};

describe("encodeAsSent", () => {
  test("compact text with members replaced, added and removed comes out as JSON.stringify would write it", () => {
    const sent = parse(JSON.stringify(CONVERSATION));
    const body: JsonObject = { ...sent, model: "sim-all" };
    delete body.temperature;
    body.thinking = { type: "adaptive" };
    body.max_tokens = 256;
    body.metadata = undefined;
    expect(stringifyAsSent(body, sent)).toBe(JSON.stringify(body));
  });

  test("an unchanged member keeps the client's spacing and escapes, the same JSON value", () => {
    const text = `{ "model" : "normal",\n  "messages": [ {"role": "user", "content": "caf\\u00e9 \\/ ok"} ] ,"max_tokens":  7 }`;
    const sent = parse(text);
    const body = { ...sent, model: "sim-all" };
    const out = stringifyAsSent(body, sent);
    // Members next to each other in the text go as one cut, with the separator as sent.
    expect(out).toBe(`{"model":"sim-all","messages": [ {"role": "user", "content": "caf\\u00e9 \\/ ok"} ] ,"max_tokens":  7}`);
    expect(JSON.parse(out)).toEqual(body);
  });

  test("keys with escapes are matched by what they parse to", () => {
    const sent = parse(`{"mod\\u0065l":"normal","a\\"b":1,"messages":[]}`);
    expect(Object.keys(sent)).toEqual(["model", 'a"b', "messages"]);
    const body = { ...sent, model: "sim-all" };
    expect(JSON.parse(stringifyAsSent(body, sent))).toEqual(body);
    expect(stringifyAsSent(body, sent)).toBe(`{"model":"sim-all","a\\"b":1,"messages":[]}`);
  });

  test("a repeated key is not cut from the text: the body is serialised", () => {
    const sent = parse(`{"model":"a","messages":[1],"model":"b"}`);
    expect(sent.model).toBe("b");
    expect(stringifyAsSent({ ...sent }, sent)).toBe(JSON.stringify(sent));
  });

  test("a member whose nested value was replaced is serialised anew", () => {
    const sent = parse(JSON.stringify(CONVERSATION));
    const messages = (sent.messages as unknown[]).slice(0, 1);
    const body = { ...sent, messages };
    expect(stringifyAsSent(body, sent)).toBe(JSON.stringify(body));
  });

  test("a `__proto__` member stays a member", () => {
    const sent = parse(`{"__proto__":{"x":1},"model":"normal"}`);
    const body = { ...sent, model: "m" };
    expect(stringifyAsSent(body, sent)).toBe(`{"__proto__":{"x":1},"model":"m"}`);
  });

  test("a body not parsed from a client's text is serialised", () => {
    const sent = JSON.parse(JSON.stringify(CONVERSATION)) as JsonObject;
    const body = { ...sent, model: "m" };
    expect(stringifyAsSent(body, sent)).toBe(JSON.stringify(body));
  });

  test("generated bodies, with and without their bytes: compact text gives JSON.stringify's bytes, other spacing the same value (fixed seed)", async () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
    const values = [null, true, 0, -1.5e-7, 12345678, "", "x\"y\\z\n", "[{", [], {}, [1, { a: "]" }], { b: { c: [] } }];
    const names = ["model", "messages", "stream", "a", "", "é", "🚀", '"', "\\", "10", "2"];
    for (let round = 0; round < 500; round++) {
      const doc: JsonObject = {};
      for (let i = Math.floor(next() * 6); i > 0; i--) doc[names[Math.floor(next() * names.length)]!] = values[Math.floor(next() * values.length)];
      const spaced = next() < 0.5;
      const text = JSON.stringify(doc, null, spaced ? 2 : undefined);
      const withBytes = next() < 0.5;
      const sent = parse(text, withBytes ? new TextEncoder().encode(text) : undefined);
      const body: JsonObject = { ...sent };
      for (const name of names) {
        const roll = next();
        if (roll < 0.15) body[name] = values[Math.floor(next() * values.length)];
        else if (roll < 0.25) delete body[name];
      }
      const encoded = encode(body, sent);
      const out = typeof encoded === "string" ? encoded : await encoded.text();
      if (spaced) expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(body)));
      else expect(out).toBe(JSON.stringify(body));
    }
  });

  test("with the client's bytes, all ASCII: a Blob of their cuts, the same bytes the text gives", async () => {
    const text = JSON.stringify(CONVERSATION);
    const bytes = new TextEncoder().encode(text);
    const sent = parse(text, bytes);
    const body: JsonObject = { ...sent, model: "sim-all", thinking: { type: "adaptive" } };
    delete body.temperature;
    const out = encode(body, sent);
    expect(out).toBeInstanceOf(Blob);
    expect(await (out as Blob).text()).toBe(JSON.stringify(body));
  });

  test("with bytes that are UTF-8 but not all ASCII: cut at the members' byte offsets", async () => {
    const text = JSON.stringify({ model: "normal", system: "café — “quoted” 🚀", messages: [{ role: "user", content: "naïve ünïcödé …" }], max_tokens: 9 });
    const sent = parse(text, new TextEncoder().encode(text));
    const body: JsonObject = { ...sent, model: "m", max_tokens: 10 };
    const out = encode(body, sent);
    expect(out).toBeInstanceOf(Blob);
    expect(new Uint8Array(await (out as Blob).arrayBuffer())).toEqual(new TextEncoder().encode(JSON.stringify(body)));
  });

  test("bytes with a bad sequence (decoded to U+FFFD) are not cut from: the body comes as a string", () => {
    // A truncated four-byte sequence: three bytes, and U+FFFD is three bytes too.
    const bytes = new Uint8Array([...new TextEncoder().encode('{"model":"normal","system":"a'), 0xf0, 0x9f, 0x98, ...new TextEncoder().encode('b","max_tokens":1}')]);
    const text = new TextDecoder().decode(bytes);
    expect(Buffer.byteLength(text)).toBe(bytes.length);
    const sent = parse(text, bytes);
    const body = { ...sent, model: "m" };
    expect(encode(body, sent)).toBe(JSON.stringify(body));
  });

  test("bytes of another length than the text (a byte-order mark the decoder dropped) are not cut from", () => {
    const text = JSON.stringify(CONVERSATION);
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    expect(new TextDecoder().decode(bytes)).toBe(text);
    const sent = parse(text, bytes);
    const body = { ...sent, model: "m" };
    expect(encode(body, sent)).toBe(JSON.stringify(body));
  });
});
