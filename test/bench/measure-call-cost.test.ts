import { describe, expect, test } from "bun:test";
import { measureCallCost } from "../../src/bench/measure-call-cost.ts";

describe("measureCallCost", () => {
  test("counts every timed call and keeps what the calls returned", async () => {
    let calls = 0;
    const cost = await measureCallCost(() => ++calls % 2, { warmup: 10, iterations: 100, rounds: 3 });
    expect(calls).toBe(310);
    expect(cost.calls).toBe(300);
    expect(cost.sink).toBe(155);
  });

  test("awaits async calls and times their whole duration", async () => {
    const spin = (us: number): number => {
      const end = Bun.nanoseconds() + us * 1000;
      let n = 0;
      while (Bun.nanoseconds() < end) n++;
      return n >= 0 ? 1 : 0;
    };
    const cost = await measureCallCost(async () => {
      await Promise.resolve();
      return spin(200);
    }, { warmup: 2, iterations: 20, rounds: 3 });
    expect(cost.p50Us).toBeGreaterThanOrEqual(200);
    expect(cost.p99Us).toBeGreaterThanOrEqual(cost.p50Us);
    // CPU time, not the clock: a spin is CPU, but a core taken away meanwhile would not count.
    expect(cost.meanUs).toBeGreaterThan(0);
    expect(cost.sink).toBe(62);
  });
});
