import type { LoadResult } from "./load-result.ts";

export interface Measured {
  readonly result: LoadResult;
  readonly cpuUsPerRequest: number | undefined;
  /** The one-connection pass, when it ran. */
  readonly latency?: LoadResult | undefined;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function medianOf(values: ReadonlyArray<number | undefined>): number | undefined {
  const present = values.filter((v): v is number => v !== undefined);
  return present.length === 0 ? undefined : median(present);
}

/**
 * One scenario's rounds folded into one row: the median of each rate and latency (a single run on
 * a shared 2-core machine swings by a fifth), the sum of requests and errors.
 */
export function medianOfRounds(rounds: readonly Measured[]): Measured {
  if (rounds.length === 0) throw new Error("medianOfRounds: no rounds");
  const latencies = rounds.flatMap((r) => (r.latency ? [r.latency] : []));
  const folded = foldResults(rounds.map((r) => r.result));
  return {
    result: folded,
    cpuUsPerRequest: medianOf(rounds.map((r) => r.cpuUsPerRequest)),
    ...(latencies.length > 0 ? { latency: foldResults(latencies) } : {}),
  };
}

function foldResults(results: readonly LoadResult[]): LoadResult {
  const first = results[0]!;
  const ttfbP50Ms = medianOf(results.map((r) => r.ttfbP50Ms));
  const ttfbP99Ms = medianOf(results.map((r) => r.ttfbP99Ms));
  const firstError = results.find((r) => r.firstError !== undefined)?.firstError;
  const result: LoadResult = {
    tool: first.tool,
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    durationSec: results.reduce((sum, r) => sum + r.durationSec, 0),
    requestsPerSec: median(results.map((r) => r.requestsPerSec)),
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    ...(ttfbP50Ms !== undefined ? { ttfbP50Ms } : {}),
    ...(ttfbP99Ms !== undefined ? { ttfbP99Ms } : {}),
    ...(firstError !== undefined ? { firstError } : {}),
  };
  return result;
}
