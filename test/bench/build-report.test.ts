import { describe, expect, test } from "bun:test";
import { buildReport, type BenchMeta } from "../../src/bench/build-report.ts";
import type { LoadResult } from "../../src/bench/load-result.ts";
import { formatReport } from "../../src/bench/print-report.ts";
import type { BenchTarget, Scenario } from "../../src/bench/scenarios.ts";

const meta: BenchMeta = {
  tool: "wrk",
  connections: 32,
  durationSec: 5,
  rounds: 3,
  latencySec: 2,
  bunVersion: "1.4.5",
  nproc: 2,
  startedAt: "2026-01-01T00:00:00.000Z",
  loadAverage: 0.5,
};

const scenario = (target: BenchTarget): Scenario => ({
  id: `chat/stream/${target}`,
  format: "chat",
  mode: "stream",
  target,
  url: "http://x",
  headers: {},
  body: "{}",
});
const load = (requestsPerSec: number): LoadResult => ({ tool: "wrk", requests: requestsPerSec, durationSec: 1, requestsPerSec, p50Ms: 1, p99Ms: 2, errors: 0 });

describe("buildReport", () => {
  const report = buildReport(meta, [
    { scenario: scenario("bare"), result: load(10_000), cpuUsPerRequest: 50 },
    { scenario: scenario("gateway"), result: load(7_500), cpuUsPerRequest: 120 },
    { scenario: scenario("cross"), result: load(7_000), cpuUsPerRequest: 180 },
  ]);
  const group = report.groups[0]!;

  test("compares same-format and cross-format rows with the same bare proxy, each against its own target", () => {
    expect(group.comparison).toMatchObject({ throughputRatio: 0.75, targetRatio: 0.8, throughputPass: false });
    expect(group.crossComparison).toMatchObject({ throughputRatio: 0.7, targetRatio: 0.65, throughputPass: true });
    expect([group.addedCpuUsPerRequest, group.crossAddedCpuUsPerRequest]).toEqual([70, 130]);
  });

  test("the printed report gives both ratios and a summary line per kind", () => {
    const text = formatReport(report);
    expect(text).toContain("gateway/bare throughput 0.750 (target ≥ 0.80) MISS");
    expect(text).toContain("cross/bare throughput 0.700 (target ≥ 0.65) PASS");
    expect(text).toContain("same-format: targets met in 0 of 1 format/mode pairs");
    expect(text).toContain("cross-format: targets met in 1 of 1 format/mode pairs");
  });

  test("cache hits are compared with the misses of the same request, p50 at one connection", () => {
    const latency = (p50Ms: number): LoadResult => ({ ...load(1), p50Ms });
    const cachedReport = buildReport(meta, [
      { scenario: scenario("gateway"), result: load(4_000), cpuUsPerRequest: 200, latency: latency(0.5) },
      { scenario: scenario("cached"), result: load(12_000), cpuUsPerRequest: 60, latency: latency(0.08) },
    ]);
    const c = cachedReport.groups[0]!.cacheComparison!;
    expect(c.throughputRatio).toBe(3);
    expect(c.p50Ratio).toBeCloseTo(6.25, 5);
    expect([c.latencyPass, c.throughputPass, c.latencyFromSingleConnection]).toEqual([true, false, true]);
    const text = formatReport(cachedReport);
    expect(text).toContain("p50 6.3× faster (one connection) (target ≥ 5×) PASS");
    expect(text).toContain("throughput 3.0× (target ≥ 5×) MISS");
    expect(text).toContain("met in 1 of 1 format/mode pairs");
    expect(report.groups[0]!.cacheComparison).toBeUndefined();
  });

  test("cost rows print their p50 against their target", () => {
    const row = { calls: 10, sink: 1, note: "", p99Us: 9 };
    const text = formatReport(
      buildReport(meta, [], [
        { ...row, id: "a", label: "warm routing", p50Us: 4.2, targetP50Us: 50 },
        { ...row, id: "b", label: "limits + cache", p50Us: 31, targetP50Us: 30 },
        { ...row, id: "c", label: "request log", p50Us: 2, targetP50Us: undefined },
      ]),
    );
    expect(text).toMatch(/warm routing +p50 +4\.20 µs .*\(target ≤ 50 µs\) PASS/);
    expect(text).toMatch(/limits \+ cache +p50 +31\.00 µs .*\(target ≤ 30 µs\) MISS/);
    expect(text).not.toMatch(/request log.*(PASS|MISS)/);
  });

  test("gateway and baseline rows give the baseline comparison, in the table, JSON and one unmarked line", () => {
    const latency = (p50Ms: number): LoadResult => ({ ...load(1), p50Ms });
    const withBaseline = buildReport(meta, [
      { scenario: scenario("bare"), result: load(10_000), cpuUsPerRequest: 50 },
      { scenario: scenario("gateway"), result: load(5_600), cpuUsPerRequest: 281, latency: latency(0.64) },
      { scenario: scenario("baseline"), result: load(5_000), cpuUsPerRequest: 309, latency: latency(0.7) },
    ]);
    const group = withBaseline.groups[0]!;
    const c = group.baselineComparison!;
    expect(c.throughputRatio).toBeCloseTo(1.12, 10);
    expect(c).toMatchObject({
      gatewayCpuUsPerRequest: 281,
      baselineCpuUsPerRequest: 309,
      cpuDeltaUsPerRequest: -28,
      gatewayP50Ms: 0.64,
      baselineP50Ms: 0.7,
      latencyFromSingleConnection: true,
      clean: true,
    });
    // The gateway/bare comparison is unchanged by the extra row.
    expect(group.comparison!.throughputRatio).toBeCloseTo(0.56, 10);
    expect(group.rows.map((row) => row.target)).toEqual(["bare", "gateway", "baseline"]);
    expect(JSON.parse(JSON.stringify(withBaseline)).groups[0].baselineComparison).toMatchObject({ cpuDeltaUsPerRequest: -28 });
    const text = formatReport(withBaseline);
    expect(text).toContain("  gateway vs baseline: throughput 1.12× · CPU 281 vs 309 µs/req (-28) · one-connection p50 0.64 vs 0.70 ms\n");
    expect(text).toMatch(/\n {2}baseline +5000 /);
    expect(text).not.toMatch(/gateway vs baseline.*(PASS|MISS)/);
  });

  test("without a one-connection pass or CPU the baseline line says so; errors are flagged", () => {
    const unclean = buildReport(meta, [
      { scenario: scenario("gateway"), result: load(4_000), cpuUsPerRequest: undefined },
      { scenario: scenario("baseline"), result: { ...load(5_000), errors: 3, p50Ms: 1.5 }, cpuUsPerRequest: undefined },
    ]);
    const c = unclean.groups[0]!.baselineComparison!;
    expect(c).toMatchObject({ throughputRatio: 0.8, cpuDeltaUsPerRequest: undefined, baselineP50Ms: 1.5, latencyFromSingleConnection: false, clean: false });
    const text = formatReport(unclean);
    expect(text).toContain("gateway vs baseline: throughput 0.80× · under-load p50 1.00 vs 1.50 ms · errors on one side");
  });

  test("no baseline row, no baseline comparison", () => {
    expect(report.groups[0]!.baselineComparison).toBeUndefined();
    expect(formatReport(report)).not.toContain("baseline");
    const baselineOnly = buildReport(meta, [
      { scenario: scenario("bare"), result: load(10_000), cpuUsPerRequest: 50 },
      { scenario: scenario("baseline"), result: load(9_000), cpuUsPerRequest: 90 },
    ]);
    expect(baselineOnly.groups[0]!.baselineComparison).toBeUndefined();
  });

  test("no cross row, no cross comparison", () => {
    const only = buildReport(meta, [
      { scenario: scenario("bare"), result: load(10_000), cpuUsPerRequest: 50 },
      { scenario: scenario("gateway"), result: load(9_000), cpuUsPerRequest: 90 },
    ]);
    expect(only.groups[0]!.crossComparison).toBeUndefined();
    expect(formatReport(only)).not.toContain("cross-format");
  });
});
