import { describe, expect, test } from "bun:test";
import { medianOfRounds } from "../../src/bench/median-of-rounds.ts";
import type { PassResult } from "../../src/bench/run-scenario.ts";

const pass = (requestsPerSec: number, p50Ms: number, cpu: number | undefined, peak: number | undefined, extra: Partial<PassResult> = {}): PassResult => ({
  tool: "wrk",
  requests: requestsPerSec * 5,
  durationSec: 5,
  requestsPerSec,
  p50Ms,
  p99Ms: p50Ms * 3,
  errors: 0,
  cpuUsPerRequest: cpu,
  peakRssBytes: peak,
  ...extra,
});

/** The loaded pass of these rounds, folded. */
const foldPasses = (passes: readonly PassResult[]): PassResult | undefined => medianOfRounds(passes.map((load) => ({ load }))).load;

describe("medianOfRounds, one pass", () => {
  test("medians of rates, latencies and CPU; sums of requests and errors; the highest peak RSS", () => {
    const folded = foldPasses([pass(10_000, 2, 60, 300), pass(14_000, 1.5, 55, 420, { errors: 2, firstError: "boom" }), pass(12_000, 3, 70, 310)]);
    expect(folded).toMatchObject({ requestsPerSec: 12_000, p50Ms: 2, p99Ms: 6, requests: 180_000, durationSec: 15, errors: 2, firstError: "boom", cpuUsPerRequest: 60, peakRssBytes: 420 });
  });

  test("an even number of rounds takes the mean of the middle two", () => {
    expect(foldPasses([pass(1, 1, 10, 1), pass(1, 3, 30, 1)])!.cpuUsPerRequest).toBe(20);
  });

  test("CPU and RSS without procfs stay undefined; rounds that have them are used", () => {
    expect(foldPasses([pass(1, 1, undefined, undefined)])!.cpuUsPerRequest).toBeUndefined();
    expect(foldPasses([pass(1, 1, undefined, undefined), pass(1, 1, 40, 5)])).toMatchObject({ cpuUsPerRequest: 40, peakRssBytes: 5 });
  });

  test("no rounds is a caller's bug", () => {
    expect(() => medianOfRounds([])).toThrow(/no rounds/);
  });
});

describe("medianOfRounds", () => {
  test("folds each pass on its own, and leaves out a pass no round ran", () => {
    const folded = medianOfRounds([{ load: pass(100, 1, 10, 1), single: pass(5, 0.2, 20, 1) }, { load: pass(300, 3, 30, 2), single: pass(7, 0.4, 40, 1) }, { load: pass(200, 2, 20, 1) }]);
    expect(folded.load).toMatchObject({ requestsPerSec: 200, cpuUsPerRequest: 20, peakRssBytes: 2 });
    expect(folded.single).toMatchObject({ requestsPerSec: 6, cpuUsPerRequest: 30 });
    expect(medianOfRounds([{ load: pass(1, 1, 1, 1) }]).single).toBeUndefined();
  });
});

describe("medianOfRounds, the thread split", () => {
  const split = (main: number, gc: number) => ({ main, gc, fetch: 0, worker: 0, jit: 0, other: 0 });

  test("the split of the middle round by CPU, so its parts add up to the median CPU", () => {
    const folded = foldPasses([
      pass(1, 1, 70, 1, { threadUsPerRequest: split(60, 10) }),
      pass(1, 1, 50, 1, { threadUsPerRequest: split(45, 5) }),
      pass(1, 1, 60, 1, { threadUsPerRequest: split(40, 20) }),
    ]);
    expect(folded).toMatchObject({ cpuUsPerRequest: 60, threadUsPerRequest: split(40, 20) });
  });

  test("the collector's work of that same round, beside its split", () => {
    const collector = (stoppedUsPerRequest: number) => ({ fullPer1k: 1, edenPer1k: 2, stoppedUsPerRequest, allocatedKbPerRequest: 30 });
    const folded = foldPasses([
      pass(1, 1, 70, 1, { threadUsPerRequest: split(60, 10), collector: collector(9) }),
      pass(1, 1, 50, 1, { threadUsPerRequest: split(45, 5), collector: collector(3) }),
      pass(1, 1, 60, 1, { threadUsPerRequest: split(40, 20), collector: collector(5) }),
    ]);
    expect(folded).toMatchObject({ threadUsPerRequest: split(40, 20), collector: collector(5) });
    expect(foldPasses([pass(1, 1, 60, 1, { threadUsPerRequest: split(40, 20) })])!.collector).toBeUndefined();
  });

  test("even rounds: the lower middle one; none measured: no split", () => {
    expect(foldPasses([pass(1, 1, 10, 1, { threadUsPerRequest: split(8, 2) }), pass(1, 1, 30, 1, { threadUsPerRequest: split(20, 10) })])!.threadUsPerRequest).toEqual(split(8, 2));
    expect(foldPasses([pass(1, 1, 10, 1)])!.threadUsPerRequest).toBeUndefined();
  });
});
