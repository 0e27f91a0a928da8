import { describe, expect, test } from "bun:test";
import { compareTargets } from "../../src/bench/compare-targets.ts";
import type { LoadResult } from "../../src/bench/load-result.ts";

const load = (requestsPerSec: number, p50Ms: number, errors = 0): LoadResult => ({
  tool: "wrk",
  requests: requestsPerSec,
  durationSec: 1,
  requestsPerSec,
  p50Ms,
  p99Ms: p50Ms * 2,
  errors,
});

describe("compareTargets", () => {
  test("throughput ratio and added latency under load when no one-connection pass ran", () => {
    const c = compareTargets(load(10_000, 2), load(8_500, 2.3));
    expect(c.throughputRatio).toBeCloseTo(0.85);
    expect(c.addedP50Ms).toBeCloseTo(0.3);
    expect(c.latencyFromSingleConnection).toBe(false);
    expect([c.throughputPass, c.latencyPass]).toEqual([true, true]);
  });

  test("added latency comes from the one-connection pass when both targets have one", () => {
    const c = compareTargets(load(10_000, 2), load(7_000, 4), load(1_500, 0.5), load(1_300, 0.6));
    expect(c.addedP50Ms).toBeCloseTo(0.1);
    expect(c.addedP99Ms).toBeCloseTo(0.2);
    expect(c.latencyFromSingleConnection).toBe(true);
    expect([c.throughputPass, c.latencyPass]).toEqual([false, true]);
  });

  test("a cross-format comparison is held to its own, lower ratio", () => {
    const same = compareTargets(load(10_000, 2), load(7_000, 2));
    const cross = compareTargets(load(10_000, 2), load(7_000, 2), undefined, undefined, 0.65);
    expect([same.targetRatio, same.throughputPass]).toEqual([0.8, false]);
    expect([cross.targetRatio, cross.throughputPass]).toEqual([0.65, true]);
  });

  test("errors anywhere fail both marks", () => {
    const c = compareTargets(load(10_000, 2), load(9_900, 2), load(1_500, 0.5), load(1_500, 0.5, 3));
    expect([c.throughputPass, c.latencyPass]).toEqual([false, false]);
  });
});
