import { describe, expect, test } from "bun:test";
import type { JsonObject } from "../../src/canonical/json-object.ts";
import { parseJsonBytes } from "../../src/pipeline/parse-json-bytes.ts";
import { encodeAsSent, readSentBody, type SentBody } from "../../src/pipeline/encode-as-sent.ts";
import { joinInScratch, type BodyPieces } from "../../src/upstream/join-in-scratch.ts";

/** What each body parsed here was sent as, as the pipeline reads it beside the body. */
const sentAs = new WeakMap<JsonObject, SentBody | undefined>();

function parse(text: string): JsonObject {
  // A buffer of its own, as a request body is: the text starts at its offset 0 (a small Buffer may be a slice of a pool).
  const bytes = new Uint8Array(Buffer.from(text));
  const { value, members } = parseJsonBytes(bytes);
  const body = value as JsonObject;
  sentAs.set(body, members ? readSentBody(body, bytes, members) : undefined);
  return body;
}

/** `body` (made from `sent`) encoded with what `sent` was sent as. */
const encode = (body: JsonObject, sent: JsonObject): string | BodyPieces => encodeAsSent(body, sentAs.get(sent));

/** What goes upstream: cuts of a client's text joined as the fetch joins them (copied: the scratch is reused), or a body serialised whole. */
function bytesAsSent(body: JsonObject, sent: JsonObject): Buffer {
  const out = encode(body, sent);
  if (typeof out === "string") return Buffer.from(out);
  const joined = joinInScratch(out);
  if (joined instanceof Blob) throw new Error("the bodies here fit the scratch");
  return Buffer.from(joined);
}

const stringifyAsSent = (body: JsonObject, sent: JsonObject): string => bytesAsSent(body, sent).toString();

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

  test("generated bodies: compact text gives JSON.stringify's bytes, other spacing the same value (fixed seed)", () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
    const values = [null, true, 0, -1.5e-7, 12345678, "", "x\"y\\z\n", "[{", [], {}, [1, { a: "]" }], { b: { c: [] } }];
    const names = ["model", "messages", "stream", "a", "", "é", "🚀", '"', "\\", "10", "2"];
    for (let round = 0; round < 500; round++) {
      const doc: JsonObject = {};
      for (let i = Math.floor(next() * 6); i > 0; i--) doc[names[Math.floor(next() * names.length)]!] = values[Math.floor(next() * values.length)];
      const spaced = next() < 0.5;
      const text = JSON.stringify(doc, null, spaced ? 2 : undefined);
      const sent = parse(text);
      const body: JsonObject = { ...sent };
      for (const name of names) {
        const roll = next();
        if (roll < 0.15) body[name] = values[Math.floor(next() * values.length)];
        else if (roll < 0.25) delete body[name];
      }
      const out = stringifyAsSent(body, sent);
      if (spaced) expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(body)));
      else expect(out).toBe(JSON.stringify(body));
    }
  });

  describe("a long cut is placed off the distances where its copy stalls", () => {
    /** A body whose `messages` member is one long cut of about `size` bytes, after `model`. */
    const longBody = (model: string, size: number) => parse(JSON.stringify({ model, messages: [{ role: "user", content: "x".repeat(size) }], max_tokens: 9 }));

    test("1 to 63 bytes ahead of the client's, modulo a page: moved on by spaces to 64 ahead", () => {
      for (const [tier, model, spaces] of [["normal", "sim-all", 63], ["fast", "sim-model-with-a-long-id", 44], ["n", `m${"x".repeat(63)}`, 1]] as const) {
        const sent = longBody(tier, 8_000);
        const body = { ...sent, model };
        const out = stringifyAsSent(body, sent);
        const head = `{"model":${JSON.stringify(model)},`;
        expect(out).toBe(JSON.stringify(body).replace(head, head + " ".repeat(spaces)));
        // Where `messages` starts: 64 bytes past its place in the client's text.
        expect(out.indexOf('"messages"') - `{"model":${JSON.stringify(tier)},`.length).toBe(64);
        expect(JSON.parse(out)).toEqual(body);
      }
    });

    test("behind, level with or 64 and more bytes ahead of the client's place, and short cuts, go as JSON.stringify writes them", () => {
      for (const [tier, model, size] of [
        ["normal", "sim", 8_000],
        ["normal", "normal", 8_000],
        ["n", `m${"x".repeat(64)}`, 8_000],
        ["normal", "sim-all", 4_000],
      ] as const) {
        const sent = longBody(tier, size);
        const body = { ...sent, model };
        expect(stringifyAsSent(body, sent)).toBe(JSON.stringify(body));
      }
    });

    test("each long cut is placed by what comes before it, wide characters counted as their bytes", () => {
      const sent = parse(JSON.stringify({ model: "normal", system: "s".repeat(5_000), max_tokens: 9, messages: ["m".repeat(5_000)] }));
      const body = { ...sent, model: "sim-all", max_tokens: "é".repeat(20) };
      const out = bytesAsSent(body, sent);
      const text = Buffer.from(JSON.stringify(sent));
      for (const key of ['"system"', '"messages"']) {
        const lead = (out.indexOf(key) - text.indexOf(key)) & 4095;
        expect(lead === 0 || lead >= 64).toBe(true);
      }
      expect(JSON.parse(out.toString())).toEqual(body);
    });
  });

  // Bytes that are not UTF-8 are never cut (read-body-bytes.test.ts): the body goes serialised.
  test("cuts of a client's text go as pieces of its UTF-8, in any script", () => {
    for (const text of [JSON.stringify(CONVERSATION), JSON.stringify({ model: "normal", system: "café — “quoted” 🚀", messages: [{ role: "user", content: "naïve ünïcödé …" }], max_tokens: 9 })]) {
      const sent = parse(text);
      const body: JsonObject = { ...sent, model: "sim-all", max_tokens: 10 };
      expect(Array.isArray(encode(body, sent))).toBe(true);
      expect(new Uint8Array(bytesAsSent(body, sent))).toEqual(new TextEncoder().encode(JSON.stringify(body)));
    }
  });
});
