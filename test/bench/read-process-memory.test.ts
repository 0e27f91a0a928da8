import { describe, expect, test } from "bun:test";
import { parseProcStatusMemory, readProcessMemory, startPeakProbe } from "../../src/bench/read-process-memory.ts";

describe("parseProcStatusMemory", () => {
  test("reads VmRSS and VmHWM in bytes", () => {
    const status = "Name:\tbun\nVmHWM:\t  400000 kB\nVmRSS:\t  300000 kB\nThreads:\t9\n";
    expect(parseProcStatusMemory(status)).toEqual({ rssBytes: 300_000 * 1024, peakBytes: 400_000 * 1024 });
  });

  test("undefined when either line is missing (a kernel thread, another OS)", () => {
    expect(parseProcStatusMemory("Name:\tkthreadd\nVmRSS:\t1 kB\n")).toBeUndefined();
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
