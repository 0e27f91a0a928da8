import {
  compareBaseline,
  compareCache,
  compareTargets,
  TARGET_CROSS_THROUGHPUT_RATIO,
  type BaselineComparison,
  type CacheComparison,
  type Comparison,
} from "./compare-targets.ts";
import type { CostRow } from "./measure-module-costs.ts";
import type { LoadResult } from "./load-result.ts";
import type { OpenStreamsResult } from "./run-open-streams.ts";
import type { BenchFormat, BenchMode, BenchTarget, Scenario } from "./scenarios.ts";

export interface BenchMeta {
  readonly tool: "wrk" | "builtin";
  readonly connections: number;
  readonly durationSec: number;
  /** Each row is the median of this many runs. */
  readonly rounds: number;
  /** Seconds of the one-connection latency pass (0 = not run). */
  readonly latencySec: number;
  readonly bunVersion: string;
  readonly nproc: number;
  readonly startedAt: string;
  /** 1-minute load average when the run started: above nproc, other programs skew the numbers. */
  readonly loadAverage: number;
}

export interface ScenarioResult extends LoadResult {
  readonly id: string;
  readonly format: BenchFormat;
  readonly mode: BenchMode;
  readonly target: BenchTarget;
  /** CPU µs the target's own server process spent per request (direct: sim, bare: proxy, gateway and cross: gateway, baseline: the baseline gateway). */
  readonly cpuUsPerRequest: number | undefined;
  /** The one-connection pass: latency without queueing. */
  readonly latency: LoadResult | undefined;
}

/** One report table: a format and mode, its rows, and the gateway/bare comparison when both ran. */
export interface ReportGroup {
  readonly format: BenchFormat;
  readonly mode: BenchMode;
  readonly rows: readonly ScenarioResult[];
  readonly comparison: Comparison | undefined;
  /** Gateway CPU per request minus the bare proxy's, µs: the gateway's own cost, independent of contention. */
  readonly addedCpuUsPerRequest: number | undefined;
  /** The cross-format row against the same bare proxy (client's format), when both ran. */
  readonly crossComparison: Comparison | undefined;
  readonly crossAddedCpuUsPerRequest: number | undefined;
  /** Response-cache hits (`cached`) against misses (`gateway`), when both ran. */
  readonly cacheComparison: CacheComparison | undefined;
  /** This checkout's gateway against the `--baseline` checkout's, same request and rounds, when both ran. */
  readonly baselineComparison: BaselineComparison | undefined;
}

export interface BenchReport {
  readonly meta: BenchMeta;
  readonly groups: readonly ReportGroup[];
  /** The gateway's modules timed in-process (absent with `--costs off`). */
  readonly costs?: readonly CostRow[] | undefined;
  /** The open-streams row, one result per hold (absent with `--streams 0`). */
  readonly openStreams?: readonly OpenStreamsResult[] | undefined;
}

const cpuBeyond = (bare: ScenarioResult | undefined, row: ScenarioResult | undefined): number | undefined =>
  bare?.cpuUsPerRequest !== undefined && row?.cpuUsPerRequest !== undefined ? row.cpuUsPerRequest - bare.cpuUsPerRequest : undefined;

/** Groups measured scenarios by format and mode, in run order, and compares gateway and cross with bare (and gateway with baseline). */
export function buildReport(
  meta: BenchMeta,
  measured: ReadonlyArray<{ scenario: Scenario; result: LoadResult; cpuUsPerRequest: number | undefined; latency?: LoadResult | undefined }>,
  costs?: readonly CostRow[],
  openStreams?: readonly OpenStreamsResult[],
): BenchReport {
  const groups = new Map<string, { format: BenchFormat; mode: BenchMode; rows: ScenarioResult[] }>();
  for (const { scenario, result, cpuUsPerRequest, latency } of measured) {
    const key = `${scenario.format}/${scenario.mode}`;
    let group = groups.get(key);
    if (!group) {
      group = { format: scenario.format, mode: scenario.mode, rows: [] };
      groups.set(key, group);
    }
    group.rows.push({ id: scenario.id, format: scenario.format, mode: scenario.mode, target: scenario.target, ...result, cpuUsPerRequest, latency });
  }
  return {
    meta,
    ...(costs ? { costs } : {}),
    ...(openStreams ? { openStreams } : {}),
    groups: [...groups.values()].map((group) => {
      const bare = group.rows.find((row) => row.target === "bare");
      const gateway = group.rows.find((row) => row.target === "gateway");
      const cross = group.rows.find((row) => row.target === "cross");
      const cached = group.rows.find((row) => row.target === "cached");
      const baseline = group.rows.find((row) => row.target === "baseline");
      const comparison = bare && gateway ? compareTargets(bare, gateway, bare.latency, gateway.latency) : undefined;
      const crossComparison =
        bare && cross ? compareTargets(bare, cross, bare.latency, cross.latency, TARGET_CROSS_THROUGHPUT_RATIO) : undefined;
      return {
        ...group,
        comparison,
        addedCpuUsPerRequest: cpuBeyond(bare, gateway),
        crossComparison,
        crossAddedCpuUsPerRequest: cpuBeyond(bare, cross),
        cacheComparison: gateway && cached ? compareCache(gateway, cached, gateway.latency, cached.latency) : undefined,
        baselineComparison: gateway && baseline ? compareBaseline(gateway, baseline) : undefined,
      };
    }),
  };
}
