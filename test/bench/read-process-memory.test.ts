import { describe, expect, test } from "bun:test";
import { readProcessMemory, startPeakProbe } from "../../src/bench/read-process-memory.ts";

describe.skipIf(!readProcessMemory(process.pid))("readProcessMemory", () => {
  test("this process's RSS, at most its high-water mark", () => {
    const memory = readProcessMemory(process.pid)!;
    expect(memory.rssBytes).toBeGreaterThan(0);
    expect(memory.peakBytes).toBeGreaterThanOrEqual(memory.rssBytes);
  });

  test("undefined for a process that is not there", () => {
    expect(readProcessMemory(2 ** 22 + 1)).toBeUndefined();
  });
});

describe.skipIf(!readProcessMemory(process.pid))("startPeakProbe", () => {
  test("the peak of this process over the probe covers memory taken and let go meanwhile", () => {
    const probe = startPeakProbe(process.pid);
    let held: Uint8Array | undefined = new Uint8Array(64 * 1024 * 1024).fill(1);
    const during = readProcessMemory(process.pid)!.rssBytes;
    held = undefined;
    const peak = probe.stop();
    expect(held).toBeUndefined();
    expect(peak).toBeGreaterThanOrEqual(during);
  });
});
