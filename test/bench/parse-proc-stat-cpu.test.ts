import { describe, expect, test } from "bun:test";
import { parseProcStatCpuMs } from "../../src/bench/parse-proc-stat-cpu.ts";

const line = (comm: string, utime: number, stime: number): string =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 5000 0 0 0 ${utime} ${stime} 0 0 20 0 7 0 1234 1000000 5000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0`;

describe("parseProcStatCpuMs", () => {
  test.each([
    ["plain comm", line("bun", 150, 25), 1750],
    ["comm with spaces and parentheses", line("bun (x) y", 3, 4), 70],
    ["idle process", line("bun", 0, 0), 0],
  ])("%s", (_name, stat, expected) => {
    expect(parseProcStatCpuMs(stat)).toBe(expected);
  });

  test.each(["", "garbage", "1 (bun) S"])("undefined for %p", (stat) => {
    expect(parseProcStatCpuMs(stat)).toBeUndefined();
  });
});
