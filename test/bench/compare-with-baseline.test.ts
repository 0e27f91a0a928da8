import { describe, expect, test } from "bun:test";
import { buildReport, type BenchMeta } from "../../src/bench/build-report.ts";
import { compareWithBaseline } from "../../src/bench/compare-with-baseline.ts";
import { formatReport } from "../../src/bench/print-report.ts";
import type { PassResult, ScenarioOutcome } from "../../src/bench/run-scenario.ts";
import type { BenchTarget, Pass, Scenario, ScenarioKind } from "../../src/bench/scenarios.ts";

const scenario = (kind: ScenarioKind, id: string, target: BenchTarget, passes: readonly Pass[]): Scenario => ({
  id,
  kind,
  bodyCase: "",
  format: "messages",
  mode: "stream",
  target,
  url: "http://x",
  headers: {},
  body: "{}",
  passes,
  warmupRequests: 1,
});

const pass = (cpu: number | undefined): PassResult => ({ tool: "wrk", requests: 1000, durationSec: 2, requestsPerSec: 500, p50Ms: 1, p99Ms: 4, errors: 0, cpuUsPerRequest: cpu, peakRssBytes: undefined });

/** A scenario measured in rounds, each round's CPU per request on `pass`. */
const rounds = (kind: ScenarioKind, id: string, target: BenchTarget, on: Pass, cpus: readonly (number | undefined)[]) => ({
  scenario: scenario(kind, id, target, [on]),
  rounds: cpus.map((cpu): ScenarioOutcome => ({ [on]: pass(cpu) })),
});

describe("compareWithBaseline", () => {
  test("each baseline scenario beside this checkout's counterpart, round by round, on the pass each reports", () => {
    const rows = compareWithBaseline([
      rounds("path", "messages/stream/bare", "bare", "load", [60, 60, 60]),
      rounds("path", "messages/stream/gateway", "gateway", "load", [270, 300, 330]),
      rounds("path", "messages/stream/baseline", "baseline", "load", [300, 300, 300]),
      // The long streams' baseline runs the translated path: its counterpart is `cross`.
      rounds("long-stream", "long-stream/messages/cross", "cross", "load", [3_000, 3_300, 2_400]),
      rounds("long-stream", "long-stream/messages/baseline", "baseline", "load", [3_000, 3_000, 3_000]),
      // The big conversations report their one-connection pass.
      rounds("body", "body/1m/gateway", "gateway", "single", [4_000, 5_000]),
      rounds("body", "body/1m/baseline", "baseline", "single", [5_000, 5_000]),
    ]);
    expect(rows).toEqual([
      { scenarioId: "messages/stream/gateway", ratios: [0.9, 1, 1.1], median: 1 },
      { scenarioId: "long-stream/messages/cross", ratios: [1, 1.1, 0.8], median: 1 },
      { scenarioId: "body/1m/gateway", ratios: [0.8, 1], median: 0.9 },
    ]);
  });

  test("a round either side did not measure is left out, and a baseline without a counterpart gives no row", () => {
    const rows = compareWithBaseline([
      rounds("path", "messages/json/gateway", "gateway", "load", [100, undefined, 90]),
      rounds("path", "messages/json/baseline", "baseline", "load", [100, 100, undefined]),
      rounds("path", "messages/stream/baseline", "baseline", "load", [100]),
    ]);
    expect(rows).toEqual([{ scenarioId: "messages/json/gateway", ratios: [1], median: 1 }]);
  });

  test("in the report: a section of its own with --baseline, each round's ratio, the median and how often this checkout cost less", () => {
    const meta: BenchMeta = {
      profile: "quick",
      tool: "wrk",
      database: "pglite",
      redis: false,
      connections: 32,
      durationSec: 2,
      rounds: 3,
      latencySec: 0,
      settleSec: 0,
      sections: ["paths"],
      soakMinutes: 0,
      bunVersion: "1.4.5",
      nproc: 2,
      startedAt: "2026-01-01T00:00:00.000Z",
    };
    const measured = [
      rounds("path", "messages/stream/bare", "bare", "load", [60, 60, 60]),
      rounds("path", "messages/stream/gateway", "gateway", "load", [270, 310, 240]),
      rounds("path", "messages/stream/baseline", "baseline", "load", [300, 300, 300]),
    ];
    const text = formatReport(buildReport({ meta: { ...meta, baseline: { dir: "/tmp/base", env: {} } }, measured }));
    expect(text).toContain("against the baseline checkout: this checkout's CPU per request ÷ the baseline's in the same round (under 1: this one cost less)");
    expect(text).toMatch(/scenario\s+round 1\s+round 2\s+round 3\s+median\s+this one cost less/);
    expect(text).toMatch(/messages\/stream\/gateway\s+0\.90\s+1\.03\s+0\.80\s+0\.90\s+in 2 of 3/);
    expect(formatReport(buildReport({ meta, measured: measured.slice(0, 2) }))).not.toContain("against the baseline checkout");
  });
});
