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

  test("with inFlight, that many calls are under way at once, and each round still makes its count", async () => {
    let under = 0;
    let most = 0;
    let calls = 0;
    const cost = await measureCallCost(async () => {
      calls++;
      most = Math.max(most, ++under);
      // A shared round trip: every call waiting now is answered on the same turn.
      await new Promise((resolve) => setImmediate(resolve));
      under--;
      return 1;
    }, { warmup: 3, iterations: 40, rounds: 2, inFlight: 8 });
    expect(calls).toBe(83);
    expect(most).toBe(8);
    expect(cost.calls).toBe(80);
    expect(cost.sink).toBe(83);
    expect(cost.p50Us).toBeGreaterThan(0);
  });

  test("without inFlight, one call at a time", async () => {
    let under = 0;
    let most = 0;
    await measureCallCost(async () => {
      most = Math.max(most, ++under);
      await new Promise((resolve) => setImmediate(resolve));
      under--;
      return 1;
    }, { warmup: 0, iterations: 20, rounds: 1 });
    expect(most).toBe(1);
  });
});
