import { describe, expect, test } from "bun:test";
import { parseJsonBody } from "../../src/pipeline/read-json-body.ts";

const utf8 = new TextDecoder();

describe("parseJsonBody", () => {
  test("a body of any size and script reads as the UTF-8 decoder reads it", () => {
    for (const content of ["plain ascii", "naïve 日本語 \u{1F600}", "\u007f edge"]) {
      for (const repeat of [1, 5_000]) {
        const value = { model: "normal", messages: [{ role: "user", content: content.repeat(repeat) }] };
        const bytes = Buffer.from(JSON.stringify(value));
        const read = parseJsonBody(bytes);
        expect(read.text).toBe(utf8.decode(bytes));
        expect(read.value).toEqual(value);
      }
    }
  });

  test("a big body with bytes that are not UTF-8 reads as the decoder reads it, each bad byte a U+FFFD", () => {
    const bytes = Buffer.concat([Buffer.from(`{"a":"${"x".repeat(20_000)}`), Buffer.from([0xff, 0xc3]), Buffer.from('"}')]);
    const read = parseJsonBody(bytes);
    expect(read.text).toBe(utf8.decode(bytes));
    expect((read.value as { a: string }).a.endsWith("\ufffd\ufffd")).toBe(true);
  });
});
