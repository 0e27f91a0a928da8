import { describe, expect, test } from "bun:test";
import { otherCpuShare, takeCpuSnapshot, type CpuSnapshot } from "../../src/bench/measure-other-cpu.ts";
import { parseProcStatTreeCpuMs, parseSystemBusyMs } from "../../src/bench/parse-proc-stat-cpu.ts";

const PROC_STAT = "cpu  1000 20 300 50000 400 5 6 7 0 0\ncpu0 500 10 150 25000 200 2 3 3 0 0\nintr 1 2 3\n";
const statLine = (utime: number, stime: number, cutime: number, cstime: number): string =>
  `4242 (post gres) S 1 4242 4242 0 -1 4194560 5000 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 7 0 1234 1000000 5000`;

describe("the /proc readings", () => {
  test("the machine's busy time: user, nice, system, irq, softirq and steal, not idle or iowait", () => {
    expect(parseSystemBusyMs(PROC_STAT)).toBe((1000 + 20 + 300 + 5 + 6 + 7) * 10);
  });

  test.each(["", "intr 1 2 3\n", "cpu 1 2 3\n", "cpu a b c d e f g h\n"])("no busy time from %p", (text) => {
    expect(parseSystemBusyMs(text)).toBeUndefined();
  });

  test("a process with the children it waited for", () => {
    expect(parseProcStatTreeCpuMs(statLine(150, 25, 300, 40))).toBe((150 + 25 + 300 + 40) * 10);
    expect(parseProcStatTreeCpuMs("4242 (bun) S 1 2 3")).toBeUndefined();
  });
});

const snapshot = (atMs: number, busyMs: number, own: Array<[number, number]>): CpuSnapshot => ({ atMs, busyMs, own: new Map(own) });

describe("otherCpuShare", () => {
  test("busy time less the run's own, over every core's time", () => {
    // 1 s on 2 cores = 2000 ms; the machine was busy 1500 ms, 1100 of them the run's.
    const share = otherCpuShare(snapshot(0, 10_000, [[1, 500], [7, 100]]), snapshot(1000, 11_500, [[1, 1500], [7, 200]]), 2);
    expect(share).toBeCloseTo(400 / 2000, 6);
  });

  test("a process that ended between the snapshots is counted once, through its parent's children's time", () => {
    // Backend 9 had used 300 ms, ran 200 ms more and ended: the postmaster (8) now holds its 500 ms as children's time.
    const before = snapshot(0, 0, [[8, 1000], [9, 300]]);
    const after = snapshot(1000, 700, [[8, 1500]]);
    expect(otherCpuShare(before, after, 1)).toBeCloseTo((700 - 200) / 1000, 6);
  });

  test("kept within 0 and 1; no time, no share", () => {
    expect(otherCpuShare(snapshot(0, 0, [[1, 0]]), snapshot(1000, 100, [[1, 150]]), 1)).toBe(0);
    expect(otherCpuShare(snapshot(0, 0, []), snapshot(10, 5000, []), 1)).toBe(1);
    expect(otherCpuShare(snapshot(5, 0, []), snapshot(5, 100, []), 2)).toBe(0);
  });
});

/** Burns CPU until the process has used `ms` of it, then prints "done". */
const burn = (ms: number): string => `while (true) { const u = process.cpuUsage(); if ((u.user + u.system) / 1000 >= ${ms}) break; } console.log("done");`;

describe("takeCpuSnapshot on this machine", () => {
  test("a child the run waited for is the run's own time", async () => {
    const before = takeCpuSnapshot();
    expect(before).toBeDefined();
    const child = Bun.spawn([process.execPath, "-e", burn(300)], { stdout: "pipe" });
    expect(await new Response(child.stdout).text()).toBe("done\n");
    await child.exited;
    const after = takeCpuSnapshot()!;
    const own = (s: CpuSnapshot): number => s.own.get(process.pid) ?? 0;
    expect(own(after) - own(before!)).toBeGreaterThanOrEqual(290);
    expect(after.busyMs - before!.busyMs).toBeGreaterThanOrEqual(290);
  }, 30_000);

  test("a program the run did not start is another's time", async () => {
    const self = process.cpuUsage();
    const before = takeCpuSnapshot()!;
    // The shell leaves at once: the burner is no child of this process, and nothing here waits for it.
    const shell = Bun.spawn(["sh", "-c", `"${process.execPath}" -e '${burn(300)}' &`], { stdout: "pipe" });
    // Its stdout closes when the burner, which holds it, has ended.
    expect(await new Response(shell.stdout).text()).toBe("done\n");
    await shell.exited;
    const after = takeCpuSnapshot()!;
    const selfMs = ((u) => (u.user + u.system) / 1000)(process.cpuUsage(self));
    const own = (s: CpuSnapshot): number => s.own.get(process.pid) ?? 0;
    // This process's own time is whatever the runner did meanwhile; what its children added is the
    // shell's few milliseconds, not the burner's 300 (the /proc figures move in 10 ms ticks).
    expect(own(after) - own(before) - selfMs).toBeLessThan(100);
    expect(otherCpuShare(before, after, 1)).toBeGreaterThan(0);
  }, 30_000);
});
