import { describe, expect, test } from "bun:test";
import { readJsonBodyWithBytes } from "../../src/pipeline/read-json-body.ts";

const utf8 = new TextDecoder();
const LIMIT = 1 << 20;

/** A client's request with these bytes: its length declared, or streamed without one (chunked). */
function requestOf(bytes: Uint8Array, declared: boolean): Request {
  if (declared) return new Request("http://gateway/v1/messages", { method: "POST", body: bytes, headers: { "content-length": String(bytes.length) } });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Two chunks cut inside the text, as a stream may arrive.
      const cut = Math.floor(bytes.length / 2);
      controller.enqueue(bytes.subarray(0, cut));
      controller.enqueue(bytes.subarray(cut));
      controller.close();
    },
  });
  return new Request("http://gateway/v1/messages", { method: "POST", body });
}

describe("readJsonBodyWithBytes", () => {
  test("a body of any size and script reads as the UTF-8 decoder reads it, declared or streamed", async () => {
    for (const content of ["plain ascii", "naïve 日本語 \u{1F600}", "\u007f edge"]) {
      for (const repeat of [1, 5_000]) {
        const value = { model: "normal", messages: [{ role: "user", content: content.repeat(repeat) }] };
        const bytes = Buffer.from(JSON.stringify(value));
        for (const declared of [true, false]) {
          const read = await readJsonBodyWithBytes(requestOf(bytes, declared), LIMIT);
          expect(Buffer.from(read.bytes).equals(bytes)).toBe(true);
          expect(read.value).toEqual(value);
          // A big body is noted to be sent on as it came; a small one is serialised again.
          expect(read.sent !== undefined).toBe(repeat > 1);
        }
      }
    }
  });

  test("a big body with bytes that are not UTF-8, or a byte-order mark, reads as the decoder reads it; one not UTF-8 is not sent on as it came", async () => {
    const bad = Buffer.concat([Buffer.from(`{"a":"${"x".repeat(20_000)}`), Buffer.from([0xff, 0xc3]), Buffer.from('"}')]);
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`{"a":"${"x".repeat(20_000)}"}`)]);
    for (const declared of [true, false]) {
      const read = await readJsonBodyWithBytes(requestOf(bad, declared), LIMIT);
      expect(Buffer.from(read.bytes).equals(bad)).toBe(true);
      expect(read.value).toEqual(JSON.parse(utf8.decode(bad)));
      expect((read.value as { a: string }).a.endsWith("\ufffd\ufffd")).toBe(true);
      expect(read.sent).toBeUndefined();
      const withMark = await readJsonBodyWithBytes(requestOf(marked, declared), LIMIT);
      expect(Buffer.from(withMark.bytes).equals(marked)).toBe(true);
      expect((withMark.value as { a: string }).a).toHaveLength(20_000);
      expect(withMark.sent).toBeDefined();
    }
  });

  test("a body over the limit is refused, by its declared length or as it streams", async () => {
    const bytes = Buffer.from(JSON.stringify({ a: "x".repeat(2_000) }));
    for (const declared of [true, false]) {
      await expect(readJsonBodyWithBytes(requestOf(bytes, declared), 1_000)).rejects.toMatchObject({ status: 413, type: "request_too_large" });
    }
  });
});
