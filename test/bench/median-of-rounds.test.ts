import { describe, expect, test } from "bun:test";
import type { LoadResult } from "../../src/bench/load-result.ts";
import { medianOfRounds } from "../../src/bench/median-of-rounds.ts";

const run = (requestsPerSec: number, p50Ms: number, cpu: number | undefined, extra: Partial<LoadResult> = {}) => ({
  result: { tool: "wrk" as const, requests: requestsPerSec * 5, durationSec: 5, requestsPerSec, p50Ms, p99Ms: p50Ms * 3, errors: 0, ...extra },
  cpuUsPerRequest: cpu,
});

describe("medianOfRounds", () => {
  test("takes medians of rates, latencies and CPU; sums requests and errors", () => {
    const folded = medianOfRounds([run(10_000, 2, 60), run(14_000, 1.5, 55, { errors: 2, firstError: "boom" }), run(12_000, 3, 70)]);
    expect(folded.result.requestsPerSec).toBe(12_000);
    expect(folded.result.p50Ms).toBe(2);
    expect(folded.result.p99Ms).toBe(6);
    expect(folded.result.requests).toBe(180_000);
    expect(folded.result.durationSec).toBe(15);
    expect(folded.result.errors).toBe(2);
    expect(folded.result.firstError).toBe("boom");
    expect(folded.cpuUsPerRequest).toBe(60);
  });

  test("an even number of rounds averages the middle two; missing CPU readings are skipped", () => {
    const folded = medianOfRounds([run(10, 1, undefined), run(20, 2, 40), run(30, 3, undefined), run(40, 4, 50)]);
    expect(folded.result.requestsPerSec).toBe(25);
    expect(folded.result.p50Ms).toBe(2.5);
    expect(folded.cpuUsPerRequest).toBe(45);
  });

  test("a single round is itself", () => {
    const one = run(5, 1, 9);
    expect(medianOfRounds([one])).toEqual(one);
  });
});
