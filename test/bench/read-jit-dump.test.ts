import { describe, expect, test } from "bun:test";
import { readJitDump } from "../../src/bench/read-jit-dump.ts";
import { createJitSymbols } from "../../src/bench/create-jit-symbols.ts";

/** A jitdump as JSC writes one: the 40-byte header, then records of 16-byte heads. */
function jitDump(startNs: bigint, records: Uint8Array[]): Uint8Array {
  const header = Buffer.alloc(40);
  header.writeUInt32LE(0x4a695444, 0);
  header.writeUInt32LE(1, 4);
  header.writeUInt32LE(40, 8);
  header.writeUInt32LE(62, 12);
  header.writeUInt32LE(4242, 20);
  header.writeBigUInt64LE(startNs, 24);
  return Buffer.concat([header, ...records]);
}

function codeLoad(timeNs: bigint, start: bigint, size: bigint, name: string): Uint8Array {
  const code = Buffer.alloc(Number(size), 0xcc);
  const fields = Buffer.alloc(40);
  fields.writeUInt32LE(4242, 0);
  fields.writeUInt32LE(4243, 4);
  fields.writeBigUInt64LE(start, 8);
  fields.writeBigUInt64LE(start, 16);
  fields.writeBigUInt64LE(size, 24);
  fields.writeBigUInt64LE(7n, 32);
  const body = Buffer.concat([fields, Buffer.from(`${name}\0`), code]);
  const head = Buffer.alloc(16);
  head.writeUInt32LE(0, 0);
  head.writeUInt32LE(16 + body.length, 4);
  head.writeBigUInt64LE(timeNs, 8);
  return Buffer.concat([head, body]);
}

/** A record the reader skips: debug info (id 2). */
function debugInfo(timeNs: bigint): Uint8Array {
  const record = Buffer.alloc(16 + 24);
  record.writeUInt32LE(2, 0);
  record.writeUInt32LE(record.length, 4);
  record.writeBigUInt64LE(timeNs, 8);
  return record;
}

describe("readJitDump", () => {
  test("reads each code load's time, range and name, and skips other records", () => {
    const dump = readJitDump(jitDump(5_000_000_000n, [codeLoad(5_500_000_000n, 0x1000n, 64n, "JSC-FTL: handle#AbC123"), debugInfo(5_600_000_000n), codeLoad(6_000_000_000n, 0x2000n, 32n, "JSC-Thunk: DefaultCall")]));
    expect(dump.startSec).toBe(5);
    expect(dump.loads).toEqual([
      { timeSec: 5.5, start: 0x1000n, end: 0x1040n, name: "JSC-FTL: handle#AbC123" },
      { timeSec: 6, start: 0x2000n, end: 0x2020n, name: "JSC-Thunk: DefaultCall" },
    ]);
  });

  test("a dump cut inside a record keeps the records before it", () => {
    const whole = jitDump(1_000_000_000n, [codeLoad(1_000_000_000n, 0x1000n, 16n, "JSC-DFG: first"), codeLoad(2_000_000_000n, 0x2000n, 16n, "JSC-DFG: second")]);
    const cut = whole.subarray(0, whole.length - 10);
    expect(readJitDump(cut).loads.map((load) => load.name)).toEqual(["JSC-DFG: first"]);
  });

  test("bytes that are no jitdump give nothing", () => {
    expect(readJitDump(Buffer.from("not a jitdump at all, just some text of forty bytes or more")).loads).toEqual([]);
    expect(readJitDump(new Uint8Array(0)).loads).toEqual([]);
  });
});

describe("createJitSymbols", () => {
  const symbols = createJitSymbols([
    { timeSec: 1, start: 0x1000n, end: 0x1100n, name: "JSC-DFG: early" },
    // The same memory, reused for other code later on.
    { timeSec: 5, start: 0x1080n, end: 0x1200n, name: "JSC-FTL: later" },
    { timeSec: 2, start: 0x3000n, end: 0x3010n, name: "JSC-Baseline: small" },
  ]);

  test("an address names the code loaded there last before the sample", () => {
    expect(symbols(0x10a0n, 3)).toBe("JSC-DFG: early");
    expect(symbols(0x10a0n, 6)).toBe("JSC-FTL: later");
    expect(symbols(0x1010n, 6)).toBe("JSC-DFG: early");
    expect(symbols(0x1150n, 6)).toBe("JSC-FTL: later");
  });

  test("no name before the code was loaded, past its end, or where none lay", () => {
    expect(symbols(0x1010n, 0.5)).toBeUndefined();
    expect(symbols(0x1150n, 3)).toBeUndefined();
    expect(symbols(0x3010n, 9)).toBeUndefined();
    expect(symbols(0x500n, 9)).toBeUndefined();
    expect(createJitSymbols([])(0x1000n, 1)).toBeUndefined();
  });
});
