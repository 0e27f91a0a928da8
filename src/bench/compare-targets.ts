import type { LoadResult } from "./load-result.ts";

/** The issues' targets, against the bare proxy in the same run: same-format, and translated (cross-format). */
export const TARGET_THROUGHPUT_RATIO = 0.8;
export const TARGET_CROSS_THROUGHPUT_RATIO = 0.65;
export const TARGET_ADDED_P50_MS = 0.5;
/** A cache hit is answered at least this many times faster than a miss against the simulated upstream. */
export const TARGET_CACHE_SPEEDUP = 5;

export interface Comparison {
  /** gateway req/s ÷ bare req/s. */
  readonly throughputRatio: number;
  /** The ratio this comparison had to reach. */
  readonly targetRatio: number;
  /** gateway p50 − bare p50, ms: from the one-connection pass when it ran, else under full load. */
  readonly addedP50Ms: number;
  readonly addedP99Ms: number;
  /** Whether the added latency comes from the one-connection pass. */
  readonly latencyFromSingleConnection: boolean;
  readonly throughputPass: boolean;
  readonly latencyPass: boolean;
}

/**
 * Gateway against the bare proxy; errors on either side fail both marks (a fast error is not a
 * pass). Added latency is read from the one-connection pass when both have one: under full load
 * p50 is mostly queueing, which measures throughput a second time.
 */
export function compareTargets(
  bare: LoadResult,
  gateway: LoadResult,
  bareLatency?: LoadResult,
  gatewayLatency?: LoadResult,
  targetRatio: number = TARGET_THROUGHPUT_RATIO,
): Comparison {
  const throughputRatio = gateway.requestsPerSec / bare.requestsPerSec;
  const single = bareLatency !== undefined && gatewayLatency !== undefined;
  const latencyBare = single ? bareLatency : bare;
  const latencyGateway = single ? gatewayLatency : gateway;
  const addedP50Ms = latencyGateway.p50Ms - latencyBare.p50Ms;
  const clean = bare.errors === 0 && gateway.errors === 0 && latencyBare.errors === 0 && latencyGateway.errors === 0;
  return {
    throughputRatio,
    targetRatio,
    addedP50Ms,
    addedP99Ms: latencyGateway.p99Ms - latencyBare.p99Ms,
    latencyFromSingleConnection: single,
    throughputPass: clean && throughputRatio >= targetRatio,
    latencyPass: clean && addedP50Ms <= TARGET_ADDED_P50_MS,
  };
}

/** Cache hits (`cached`) against misses (`gateway`, `cache-control: no-cache`), same request. */
export interface CacheComparison {
  /** hit req/s ÷ miss req/s under load. */
  readonly throughputRatio: number;
  /** miss p50 ÷ hit p50: from the one-connection pass when both ran, else under load. */
  readonly p50Ratio: number;
  readonly latencyFromSingleConnection: boolean;
  readonly throughputPass: boolean;
  /** "Answered at least 5× faster" is a latency statement: this is the target's mark. */
  readonly latencyPass: boolean;
}

export function compareCache(miss: LoadResult, hit: LoadResult, missLatency?: LoadResult, hitLatency?: LoadResult): CacheComparison {
  const single = missLatency !== undefined && hitLatency !== undefined;
  const m = single ? missLatency : miss;
  const h = single ? hitLatency : hit;
  const clean = miss.errors === 0 && hit.errors === 0 && m.errors === 0 && h.errors === 0;
  const throughputRatio = hit.requestsPerSec / miss.requestsPerSec;
  const p50Ratio = m.p50Ms / h.p50Ms;
  return {
    throughputRatio,
    p50Ratio,
    latencyFromSingleConnection: single,
    throughputPass: clean && throughputRatio >= TARGET_CACHE_SPEEDUP,
    latencyPass: clean && p50Ratio >= TARGET_CACHE_SPEEDUP,
  };
}

/**
 * This checkout's gateway (`gateway`) against another checkout's (`baseline`), same request, same
 * rounds. No mark: it says which way a change moved the numbers, not whether a target was met.
 */
export interface BaselineComparison {
  /** gateway req/s ÷ baseline req/s: above 1, this checkout serves more. */
  readonly throughputRatio: number;
  /** Each gateway process's own CPU per request (undefined without procfs), and gateway − baseline. */
  readonly gatewayCpuUsPerRequest: number | undefined;
  readonly baselineCpuUsPerRequest: number | undefined;
  readonly cpuDeltaUsPerRequest: number | undefined;
  /** p50 of each: from the one-connection pass when both ran, else under load. */
  readonly gatewayP50Ms: number;
  readonly baselineP50Ms: number;
  readonly latencyFromSingleConnection: boolean;
  /** False when either side had errors: then a faster side may just be failing faster. */
  readonly clean: boolean;
}

/** A measured row as compareBaseline reads it: the load pass, its server's CPU, the one-connection pass. */
interface RowWithCpu extends LoadResult {
  readonly cpuUsPerRequest: number | undefined;
  readonly latency?: LoadResult | undefined;
}

export function compareBaseline(gateway: RowWithCpu, baseline: RowWithCpu): BaselineComparison {
  const gatewayLatency = gateway.latency;
  const baselineLatency = baseline.latency;
  const single = gatewayLatency !== undefined && baselineLatency !== undefined;
  const g = single ? gatewayLatency : gateway;
  const b = single ? baselineLatency : baseline;
  const gatewayCpu = gateway.cpuUsPerRequest;
  const baselineCpu = baseline.cpuUsPerRequest;
  return {
    throughputRatio: gateway.requestsPerSec / baseline.requestsPerSec,
    gatewayCpuUsPerRequest: gatewayCpu,
    baselineCpuUsPerRequest: baselineCpu,
    cpuDeltaUsPerRequest: gatewayCpu !== undefined && baselineCpu !== undefined ? gatewayCpu - baselineCpu : undefined,
    gatewayP50Ms: g.p50Ms,
    baselineP50Ms: b.p50Ms,
    latencyFromSingleConnection: single,
    clean: gateway.errors === 0 && baseline.errors === 0 && g.errors === 0 && b.errors === 0,
  };
}
