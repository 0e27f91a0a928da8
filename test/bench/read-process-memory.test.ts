import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
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

/**
 * The kernel keeps a process's RSS in per-CPU counters (anonymous, file and shared pages), each
 * CPU holding up to a batch of max(32, 2 × CPUs) pages before it folds them in; VmRSS and VmHWM
 * are read from those counters, so two reads can disagree by that much without a page moving.
 */
const COUNTER_ERROR_BYTES = 3 * Math.max(32, 2 * availableParallelism()) * availableParallelism() * 4096;

describe.skipIf(!readProcessMemory(process.pid))("startPeakProbe", () => {
  test("the peak of this process over the probe covers memory taken and let go meanwhile", () => {
    const before = readProcessMemory(process.pid)!.rssBytes;
    const probe = startPeakProbe(process.pid);
    let held: Uint8Array | undefined = new Uint8Array(64 * 1024 * 1024).fill(1);
    const during = readProcessMemory(process.pid)!.rssBytes;
    held = undefined;
    Bun.gc(true);
    const after = readProcessMemory(process.pid)!.rssBytes;
    const peak = probe.stop()!;
    expect(held).toBeUndefined();
    // The 64 MiB was resident during the probe and given back before it stopped, so a probe that
    // read only the RSS at its end would come out well under `during`.
    expect(during - before).toBeGreaterThan(60 * 1024 * 1024);
    expect(after).toBeLessThan(during - 32 * 1024 * 1024);
    expect(peak).toBeGreaterThanOrEqual(during - COUNTER_ERROR_BYTES);
  });
});
