/**
 * Nearest-rank percentile of an ascending-sorted sample: the smallest value with at least p% of
 * the sample at or below it. Nearest-rank (no interpolation) matches what wrk and HdrHistogram
 * report, so builtin and wrk numbers are comparable. NaN for an empty sample.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (p <= 0) return sorted[0]!;
  if (p >= 100) return sorted[n - 1]!;
  const rank = Math.ceil((p / 100) * n);
  return sorted[Math.max(0, rank - 1)]!;
}

/** Sorts a copy of the first `count` values once and reads every requested percentile from it. */
export function percentiles(values: Float64Array, count: number, ps: readonly number[]): number[] {
  // Typed-array sort is numeric (not lexicographic) and in-place on the copy, so one sort serves all ps.
  const sorted = values.slice(0, count).sort();
  return ps.map((p) => percentile(sorted, p));
}
