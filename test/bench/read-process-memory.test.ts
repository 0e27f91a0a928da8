import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { readProcessMemory, startPeakProbe } from "../../src/bench/read-process-memory.ts";
import { readLinesUntil } from "../helpers/read-lines-until.ts";

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

/**
 * A process of its own that takes 64 MiB and lets it go when told, line by line, as the bench's
 * probe watches the gateway. Fresh, and with the allocator returning freed pages at once, it is
 * the process whose RSS the test can tell: a long-lived test process may take the 64 MiB from
 * pages it freed before (its RSS grew by 40 MB, not 64, in one CI run) and keep them after.
 */
const HOLDER = `
let held;
process.stdout.write("ready\\n");
for await (const command of console) {
  if (command === "take") held = new Uint8Array(64 * 1024 * 1024).fill(1);
  if (command === "let go") {
    held = undefined;
    Bun.gc(true);
  }
  process.stdout.write(command + "\\n");
}
`;

describe.skipIf(!readProcessMemory(process.pid))("startPeakProbe", () => {
  test("the peak of a process over the probe covers memory it took and let go meanwhile", async () => {
    const holder = Bun.spawn([process.execPath, "-e", HOLDER], { stdin: "pipe", stdout: "pipe", env: { ...process.env, MIMALLOC_PURGE_DELAY: "0" } });
    const nextLine = async (): Promise<string> => (await readLinesUntil(holder.stdout, (lines) => lines.length > 0))[0] ?? "";
    const tell = async (command: string): Promise<void> => {
      holder.stdin.write(`${command}\n`);
      await holder.stdin.flush();
      expect(await nextLine()).toBe(command);
    };
    try {
      expect(await nextLine()).toBe("ready");
      const before = readProcessMemory(holder.pid)!.rssBytes;
      const probe = startPeakProbe(holder.pid);
      await tell("take");
      const during = readProcessMemory(holder.pid)!.rssBytes;
      await tell("let go");
      const after = readProcessMemory(holder.pid)!.rssBytes;
      const peak = probe.stop()!;
      // Taken and given back while the probe ran: a probe that read only the RSS at its end would come out well under `during`.
      expect(during - before).toBeGreaterThan(60 * 1024 * 1024);
      expect(after).toBeLessThan(during - 32 * 1024 * 1024);
      expect(peak).toBeGreaterThanOrEqual(during - COUNTER_ERROR_BYTES);
    } finally {
      holder.kill();
      await holder.exited;
    }
  });
});
