import { describe, expect, test } from "bun:test";
import { hasBytesAt } from "../../src/canonical/has-bytes-at.ts";

const utf8 = (text: string): Uint8Array => Buffer.from(text);

describe("hasBytesAt", () => {
  test("finds the bytes where they are, in a plain array or a Buffer, characters past ASCII and all", () => {
    const body = utf8('{"stream":true,"text":"naïve → ✓"}');
    expect(hasBytesAt(body, 1, utf8('"stream"'))).toBe(true);
    expect(hasBytesAt(new Uint8Array(body), 23, utf8("naïve → ✓"))).toBe(true);
    expect(hasBytesAt(body, 0, utf8('"stream"'))).toBe(false);
    expect(hasBytesAt(body, 23, utf8("naive"))).toBe(false);
  });

  test("bytes that would run past the end are not there, not compared with what lies beyond", () => {
    const body = utf8("abcdef");
    expect(hasBytesAt(body.subarray(0, 4), 2, utf8("cdef"))).toBe(false);
    expect(hasBytesAt(body, 6, utf8(""))).toBe(true);
    expect(hasBytesAt(body, 7, utf8("g"))).toBe(false);
  });
});
