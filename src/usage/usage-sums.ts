import { sql } from "drizzle-orm";

/** Sums over a set of usage rows, named as the wire formats name them. */
export interface UsageTotals {
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly reasoning_tokens: number;
  /** Answers from the response cache: counted here and nowhere in the token sums. */
  readonly cache_hits: number;
  /** Requests answered with an error status. */
  readonly errors: number;
  readonly cost_usd: number;
}

export const USAGE_TOTAL_FIELDS = [
  "requests",
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
  "reasoning_tokens",
  "cache_hits",
  "errors",
  "cost_usd",
] as const satisfies readonly (keyof UsageTotals)[];

/**
 * The select list of the sums over `usage_records`. Token sums are billable tokens only: a cache
 * hit keeps the counts of the answer it replayed on its row, but is free and counted in
 * `cache_hits` alone.
 */
export const USAGE_SUMS = sql`
  count(*) as requests,
  coalesce(sum(input_tokens) filter (where not cache_hit), 0) as input_tokens,
  coalesce(sum(output_tokens) filter (where not cache_hit), 0) as output_tokens,
  coalesce(sum(cache_read_tokens) filter (where not cache_hit), 0) as cache_read_tokens,
  coalesce(sum(cache_write_tokens) filter (where not cache_hit), 0) as cache_write_tokens,
  coalesce(sum(reasoning_tokens) filter (where not cache_hit), 0) as reasoning_tokens,
  count(*) filter (where cache_hit) as cache_hits,
  count(*) filter (where status >= 400) as errors,
  coalesce(sum(cost_usd), 0) as cost_usd`;

/** One row of `USAGE_SUMS` as numbers (drivers hand bigints over as strings). */
export function totalsOf(row: Record<string, unknown> | undefined): UsageTotals {
  const n = (key: string) => Number(row?.[key] ?? 0);
  return {
    requests: n("requests"),
    input_tokens: n("input_tokens"),
    output_tokens: n("output_tokens"),
    cache_read_input_tokens: n("cache_read_tokens"),
    cache_creation_input_tokens: n("cache_write_tokens"),
    reasoning_tokens: n("reasoning_tokens"),
    cache_hits: n("cache_hits"),
    errors: n("errors"),
    // Fractions of a micro-dollar are noise from floating sums.
    cost_usd: Math.round(n("cost_usd") * 1e6) / 1e6,
  };
}
