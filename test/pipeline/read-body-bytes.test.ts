import { describe, expect, test } from "bun:test";
import { buildResponseCacheKey } from "../../src/cache/build-response-cache-key.ts";
import type { JsonObject } from "../../src/canonical/json-object.ts";
import { createParseMemo } from "../../src/pipeline/create-parse-memo.ts";
import { encodeAsSent } from "../../src/pipeline/encode-as-sent.ts";
import { joinInScratch } from "../../src/upstream/join-in-scratch.ts";
import { parseJsonBody } from "../../src/pipeline/read-json-body.ts";
import { countSkips } from "../helpers/count-skips.ts";

/** A conversation of about `turns` × 1.5 KB, its text in several scripts: one character past U+00FF makes decoded text 16-bit. */
function conversation(turns: number): JsonObject {
  const messages = Array.from({ length: turns }, (_, n) => ({
    role: n % 2 === 0 ? "user" : "assistant",
    content: [{ type: "text", text: `${n} — “quoted” ✓ naïve 日本語 \u{1F600} ${"x".repeat(1_400)}` }],
  }));
  return { model: "normal", max_tokens: 64, system: "Be brief → always.", messages };
}

describe("a big body is read as the UTF-8 bytes it came in", () => {
  test("an agent's next turn is read from the memo as the bytes came, and sent on as those bytes", async () => {
    const memo = createParseMemo({ maxChars: 1 << 24 });
    const value = conversation(40);
    const bytes = Buffer.from(JSON.stringify(value));
    let skips = 0;
    const read = () => parseJsonBody(new Uint8Array(bytes), countSkips(memo.scope("a"), () => skips++));
    read();
    read();
    const third = read();
    // The third sight passes over every message as the second left it.
    expect(skips).toBe(40);
    expect(third.value).toEqual(value);
    // The members unchanged go upstream as the client's bytes, wide characters and all.
    const forwarded = { ...(third.value as JsonObject), model: "sim-all" };
    const pieces = encodeAsSent(forwarded, third.sent);
    if (typeof pieces === "string") throw new Error("expected the client's bytes cut, not the body serialised");
    // `{"model":"sim-all",` is a byte longer than the client's `{"model":"normal",`: the rest goes
    // 63 spaces on, 64 bytes past where it lay (see spacesBefore).
    const head = '{"model":"sim-all",';
    const expected = Buffer.concat([Buffer.from(head), Buffer.from(" ".repeat(63)), bytes.subarray(head.length - 1)]);
    expect(Buffer.from(joinInScratch(pieces) as Uint8Array).equals(expected)).toBe(true);
    expect(expected.equals(Buffer.from(JSON.stringify(forwarded).replace(head, head + " ".repeat(63))))).toBe(true);
  });

  test("a kept piece holds bytes of its own: the body it came from may be reused for the next read", () => {
    const memo = createParseMemo({ maxChars: 1 << 24 });
    const text = JSON.stringify(conversation(16));
    // A Buffer, as a streamed body is read: its `slice` is a view, which the memo must not keep.
    const body = Buffer.from(text);
    const first = parseJsonBody(body, memo.scope("a"));
    parseJsonBody(body, memo.scope("a"));
    const kept = parseJsonBody(body, memo.scope("a")).value as { messages: unknown[] };
    // The buffer is overwritten, as a pooled one would be, with a body of the same length.
    body.write("y".repeat(body.length - 2), 1, "latin1");
    const again = parseJsonBody(Buffer.from(text), memo.scope("a")).value as { messages: unknown[] };
    expect(again.messages[3]).toBe(kept.messages[3]);
    expect(again).toEqual(first.value as { messages: unknown[] });
  });

  test("the cache key from the bytes is the key the parsed body gives, characters past ASCII and all", () => {
    const value = conversation(12);
    const read = parseJsonBody(Buffer.from(JSON.stringify(value)));
    expect(read.members).toBeDefined();
    expect(buildResponseCacheKey("acct", "messages", value, read)).toBe(buildResponseCacheKey("acct", "messages", value));
  });

  test("a big body that is not UTF-8 is parsed as decoded, and serialised again rather than sent on as it came", () => {
    const text = JSON.stringify(conversation(12));
    const cut = text.indexOf("x".repeat(10));
    const bytes = Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from([0xff]), Buffer.from(text.slice(cut + 1))]);
    const read = parseJsonBody(bytes);
    expect(read.sent).toBeUndefined();
    expect(JSON.stringify(read.value)).toContain("\ufffd");
    expect(encodeAsSent(read.value as JsonObject, read.sent)).toBe(JSON.stringify(read.value));
  });
});
