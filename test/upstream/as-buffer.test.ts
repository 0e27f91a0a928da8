import { describe, expect, test } from "bun:test";
import { asBuffer } from "../../src/upstream/as-buffer.ts";

/** A Uint8Array whose `.buffer` must not be read: reading it is what costs a small array about 1 µs. */
function untouchable(bytes: Uint8Array): Uint8Array {
  const chunk = new Uint8Array(bytes);
  Object.defineProperty(chunk, "buffer", {
    get() {
      throw new Error("asBuffer read .buffer of a small chunk");
    },
  });
  return chunk;
}

describe("asBuffer", () => {
  test("a Buffer is itself", () => {
    const buffer = Buffer.from("data: 1\n\n");
    expect(asBuffer(buffer)).toBe(buffer);
  });

  test("a small chunk (an event a read) is copied, without reading its .buffer", () => {
    const chunk = untouchable(new TextEncoder().encode('event: ping\ndata: {"type":"ping"}\n\n'));
    const buffer = asBuffer(chunk);
    expect(Buffer.isBuffer(buffer)).toBe(true);
    expect(buffer.toString()).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(asBuffer(untouchable(new Uint8Array(1000))).length).toBe(1000);
  });

  test("a big chunk is a view of the same bytes, its offset kept", () => {
    const whole = new Uint8Array(4096).fill(0x61);
    const chunk = whole.subarray(16, 4000);
    const buffer = asBuffer(chunk);
    expect(buffer.length).toBe(3984);
    buffer[0] = 0x62;
    expect(whole[16]).toBe(0x62);
    expect(buffer.indexOf(0x62)).toBe(0);
  });
});
