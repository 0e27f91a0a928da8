import type { LoadResult } from "./load-result.ts";

/** The targets: same-format gateway vs the bare proxy in the same run. */
export const TARGET_THROUGHPUT_RATIO = 0.8;
export const TARGET_ADDED_P50_MS = 0.5;

export interface Comparison {
  /** gateway req/s ÷ bare req/s. */
  readonly throughputRatio: number;
  /** gateway p50 − bare p50, ms. */
  readonly addedP50Ms: number;
  readonly addedP99Ms: number;
  readonly throughputPass: boolean;
  readonly latencyPass: boolean;
}

/** Gateway against the bare proxy; errors on either side fail both marks (a fast error is not a pass). */
export function compareTargets(bare: LoadResult, gateway: LoadResult): Comparison {
  const throughputRatio = gateway.requestsPerSec / bare.requestsPerSec;
  const addedP50Ms = gateway.p50Ms - bare.p50Ms;
  const clean = bare.errors === 0 && gateway.errors === 0;
  return {
    throughputRatio,
    addedP50Ms,
    addedP99Ms: gateway.p99Ms - bare.p99Ms,
    throughputPass: clean && throughputRatio >= TARGET_THROUGHPUT_RATIO,
    latencyPass: clean && addedP50Ms <= TARGET_ADDED_P50_MS,
  };
}
