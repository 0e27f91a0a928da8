import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { totalsOf, USAGE_SUMS as SUMS, type UsageTotals } from "./usage-sums.ts";
import type { JsonObject } from "../canonical/json-object.ts";

export type { UsageTotals } from "./usage-sums.ts";

export interface MonthlyUsage {
  readonly account_id: string;
  /** `YYYY-MM` (UTC). */
  readonly month: string;
  readonly totals: UsageTotals;
  readonly by_tier: ReadonlyArray<UsageTotals & { readonly tier: string }>;
  readonly by_model: ReadonlyArray<UsageTotals & { readonly model: string | null }>;
  /** By the key that made the requests; null for Smart+ job calls and rows from before keys were recorded. */
  readonly by_key: ReadonlyArray<UsageTotals & { readonly key_id: string | null }>;
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
  const [total, tiers, models, keys] = await Promise.all([
    database.rows<JsonObject>(sql`select ${SUMS} from usage_records where ${where}`),
    database.rows<JsonObject>(sql`select tier, ${SUMS} from usage_records where ${where} group by tier order by tier`),
    database.rows<JsonObject>(sql`select model, ${SUMS} from usage_records where ${where} group by model order by model nulls last`),
    database.rows<JsonObject>(sql`select key_id, ${SUMS} from usage_records where ${where} group by key_id order by key_id nulls last`),
  ]);
  return {
    account_id: accountId,
    month,
    totals: totalsOf(total[0]),
    by_tier: tiers.map((row) => ({ tier: String(row.tier), ...totalsOf(row) })),
    by_model: models.map((row) => ({ model: row.model === null ? null : String(row.model), ...totalsOf(row) })),
    by_key: keys.map((row) => ({ key_id: row.key_id === null ? null : String(row.key_id), ...totalsOf(row) })),
  };
}
