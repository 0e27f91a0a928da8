import { describe, expect, test } from "bun:test";
import { measureCallCost } from "../../src/bench/measure-call-cost.ts";

/** Spins the CPU for `ms` of wall time; returns 1. */
function spinMs(ms: number): number {
  const end = Bun.nanoseconds() + ms * 1e6;
  let n = 0;
  while (Bun.nanoseconds() < end) n++;
  return n >= 0 ? 1 : 0;
}

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

  test("with roundMs, each round stops taking calls once its time has passed, but makes at least ten; the warmup makes all its calls", async () => {
    let calls = 0;
    // 5 ms a call: ten calls already take 50 ms, past the 20 ms a round may take.
    const cost = await measureCallCost(() => {
      calls++;
      return spinMs(5);
    }, { warmup: 6, iterations: 1_000, rounds: 2, roundMs: 20 });
    expect(calls).toBe(26);
    expect(cost.calls).toBe(20);
    expect(cost.sink).toBe(26);
  });

  test("with roundMs, the CPU a call is the round's over the calls it made, not over the count asked", async () => {
    const cost = await measureCallCost(() => spinMs(1), { warmup: 0, iterations: 10_000, rounds: 3, roundMs: 30 });
    expect(cost.calls).toBeGreaterThanOrEqual(30);
    expect(cost.calls).toBeLessThan(150);
    // A 1 ms spin is about 1,000 µs of CPU; divided by the 10,000 asked it would read under 10.
    expect(cost.meanUs).toBeGreaterThan(300);
    expect(cost.p50Us).toBeGreaterThanOrEqual(1_000);
  });

  test("with roundMs and inFlight, every loop stops taking calls once the round's time has passed", async () => {
    const cost = await measureCallCost(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return 1;
    }, { warmup: 0, iterations: 10_000, rounds: 2, inFlight: 4, roundMs: 40 });
    expect(cost.calls).toBeGreaterThanOrEqual(20);
    expect(cost.calls).toBeLessThan(2 * 200);
    expect(cost.sink).toBe(cost.calls);
  });

  test("a round whose count is reached first makes just that count, roundMs or not", async () => {
    const cost = await measureCallCost(() => 1, { warmup: 5, iterations: 50, rounds: 2, roundMs: 60_000 });
    expect(cost.calls).toBe(100);
    expect(cost.sink).toBe(105);
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
