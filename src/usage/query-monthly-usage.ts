import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";

/** Sums over a set of usage rows, named as the wire formats name them. */
export interface UsageTotals {
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly reasoning_tokens: number;
  readonly cache_hits: number;
  readonly cost_usd: number;
}

export interface MonthlyUsage {
  readonly account_id: string;
  /** `YYYY-MM` (UTC). */
  readonly month: string;
  readonly totals: UsageTotals;
  readonly by_tier: ReadonlyArray<UsageTotals & { readonly tier: string }>;
  readonly by_model: ReadonlyArray<UsageTotals & { readonly model: string | null }>;
}

type SumRow = Record<string, unknown>;

const SUMS = sql`
  count(*) as requests,
  coalesce(sum(input_tokens), 0) as input_tokens,
  coalesce(sum(output_tokens), 0) as output_tokens,
  coalesce(sum(cache_read_tokens), 0) as cache_read_tokens,
  coalesce(sum(cache_write_tokens), 0) as cache_write_tokens,
  coalesce(sum(reasoning_tokens), 0) as reasoning_tokens,
  count(*) filter (where cache_hit) as cache_hits,
  coalesce(sum(cost_usd), 0) as cost_usd`;

function totalsOf(row: SumRow | undefined): UsageTotals {
  const n = (key: string) => Number(row?.[key] ?? 0);
  return {
    requests: n("requests"),
    input_tokens: n("input_tokens"),
    output_tokens: n("output_tokens"),
    cache_read_input_tokens: n("cache_read_tokens"),
    cache_creation_input_tokens: n("cache_write_tokens"),
    reasoning_tokens: n("reasoning_tokens"),
    cache_hits: n("cache_hits"),
    // Cents of a micro-dollar are noise from floating sums.
    cost_usd: Math.round(n("cost_usd") * 1e6) / 1e6,
  };
}

/** Parses `YYYY-MM` into the month's UTC bounds; null when it is not a month. */
export function parseMonth(month: string): { start: Date; end: Date } | null {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) return null;
  const year = Number(match[1]);
  const index = Number(match[2]) - 1;
  return { start: new Date(Date.UTC(year, index, 1)), end: new Date(Date.UTC(year, index + 1, 1)) };
}

/** An account's usage in one UTC calendar month: totals, by tier and by model. */
export async function queryMonthlyUsage(database: Database, accountId: string, month: string): Promise<MonthlyUsage> {
  const bounds = parseMonth(month);
  if (!bounds) throw new Error(`not a month: ${month}`);
  const where = sql`account_id = ${accountId} and created_at >= ${bounds.start.toISOString()} and created_at < ${bounds.end.toISOString()}`;
  const [total, tiers, models] = await Promise.all([
    database.rows<SumRow>(sql`select ${SUMS} from usage_records where ${where}`),
    database.rows<SumRow>(sql`select tier, ${SUMS} from usage_records where ${where} group by tier order by tier`),
    database.rows<SumRow>(sql`select model, ${SUMS} from usage_records where ${where} group by model order by model nulls last`),
  ]);
  return {
    account_id: accountId,
    month,
    totals: totalsOf(total[0]),
    by_tier: tiers.map((row) => ({ tier: String(row.tier), ...totalsOf(row) })),
    by_model: models.map((row) => ({ model: row.model === null ? null : String(row.model), ...totalsOf(row) })),
  };
}
