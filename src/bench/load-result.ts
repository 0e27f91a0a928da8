/** What one measured scenario produced, whichever tool drove the load. */
export interface LoadResult {
  readonly tool: "wrk" | "builtin";
  readonly requests: number;
  readonly durationSec: number;
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx answers plus transport errors (wrk: socket errors; builtin: thrown fetches). */
  readonly errors: number;
  /** Builtin generator only: time to the first body chunk. wrk cannot see it. */
  readonly ttfbP50Ms?: number;
  readonly ttfbP99Ms?: number;
  /** First error seen, so a failing scenario says why instead of just counting. */
  readonly firstError?: string;
}
