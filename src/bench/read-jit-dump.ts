/** One piece of code a JIT compiled, as its jitdump records it: where it lay, from when, under what name. */
export interface JitCodeLoad {
  /** When it was loaded, seconds on the clock the dump was written with (CLOCK_MONOTONIC for JSC). */
  readonly timeSec: number;
  readonly start: bigint;
  readonly end: bigint;
  /** As the JIT named it: "JSC-FTL: decisionKey#ApfDRD", "JSC-Thunk: DefaultCall", … */
  readonly name: string;
}

export interface JitDump {
  /** When the dump was opened, seconds: a process that replaced its image (exec) has one dump per image, and only the last one's code is what ran after. */
  readonly startSec: number;
  readonly loads: readonly JitCodeLoad[];
}

/** "JiTD" read as a little-endian u32: a dump written on this machine's byte order. */
const MAGIC = 0x4a695444;
/** magic, version, header size, machine, padding, pid (u32 each), then the time it was opened and flags (u64). */
const HEADER_BYTES = 40;
const CODE_LOAD = 0;
const RECORD_HEADER_BYTES = 16;
/** The code-load record's fields before its name: pid, tid, vma, code address, code size, code index. */
const CODE_LOAD_FIXED_BYTES = 40;

/**
 * The code loads of a jitdump file (the format perf's `inject --jit` reads; JSC writes one with
 * `BUN_JSC_useJITDump=1`). Other records (moves, debug and unwinding info) are skipped. A dump whose
 * writer was still running may end inside a record: what comes before it is kept.
 */
export function readJitDump(bytes: Uint8Array): JitDump {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC) return { startSec: 0, loads: [] };
  const decoder = new TextDecoder();
  const loads: JitCodeLoad[] = [];
  for (let at = view.getUint32(8, true); at + RECORD_HEADER_BYTES <= bytes.byteLength; ) {
    const id = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    if (size < RECORD_HEADER_BYTES || at + size > bytes.byteLength) break;
    if (id === CODE_LOAD && size > RECORD_HEADER_BYTES + CODE_LOAD_FIXED_BYTES) {
      const fields = at + RECORD_HEADER_BYTES;
      const start = view.getBigUint64(fields + 16, true);
      const codeSize = view.getBigUint64(fields + 24, true);
      const nameStart = fields + CODE_LOAD_FIXED_BYTES;
      const nameEnd = bytes.indexOf(0, nameStart);
      loads.push({
        timeSec: Number(view.getBigUint64(at + 8, true)) / 1e9,
        start,
        end: start + codeSize,
        name: decoder.decode(bytes.subarray(nameStart, nameEnd < 0 || nameEnd > at + size ? at + size : nameEnd)),
      });
    }
    at += size;
  }
  return { startSec: Number(view.getBigUint64(24, true)) / 1e9, loads };
}
