import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { totalsOf, USAGE_SUMS, type UsageTotals } from "./usage-sums.ts";

/** What a report can be grouped by; `day` and `hour` are UTC. */
export const USAGE_GROUPS = ["day", "hour", "account", "tier", "model", "key"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** The column each group adds to a report row. */
export const GROUP_COLUMN: Readonly<Record<UsageGroup, string>> = {
  day: "day",
  hour: "hour",
  account: "account_id",
  tier: "tier",
  model: "model",
  key: "key_id",
};

const GROUP_EXPRESSION: Readonly<Record<UsageGroup, SQL>> = {
  day: sql.raw(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`),
  hour: sql.raw(`to_char(date_trunc('hour', created_at at time zone 'UTC'), 'YYYY-MM-DD"T"HH24":00:00Z"')`),
  account: sql.raw("account_id"),
  tier: sql.raw("tier"),
  model: sql.raw("model"),
  key: sql.raw("key_id"),
};

export interface UsageReportQuery {
  /** Inclusive. */
  readonly from: Date;
  /** Exclusive. */
  readonly to: Date;
  readonly groupBy: readonly UsageGroup[];
  readonly accountId?: string | undefined;
  readonly keyId?: string | undefined;
}

export type UsageReportRow = UsageTotals & Readonly<Record<string, string | number | null>>;

export interface UsageReport {
  readonly from: string;
  readonly to: string;
  readonly group_by: readonly UsageGroup[];
  readonly totals: UsageTotals;
  readonly data: readonly UsageReportRow[];
}

/**
 * Usage over a time range across the fleet (or one account, or one key), grouped by any of day,
 * hour, account, tier, model and key, with the totals. One statement for the groups, one for the
 * totals; the range is read through the BRIN index on `created_at` (or the account's index).
 */
export async function queryUsageReport(database: Database, query: UsageReportQuery): Promise<UsageReport> {
  const conditions: SQL[] = [sql`created_at >= ${query.from.toISOString()}`, sql`created_at < ${query.to.toISOString()}`];
  if (query.accountId !== undefined) conditions.push(sql`account_id = ${query.accountId}`);
  if (query.keyId !== undefined) conditions.push(sql`key_id = ${query.keyId}`);
  const where = sql.join(conditions, sql` and `);
  const groups = query.groupBy.map((group) => sql`${GROUP_EXPRESSION[group]} as ${sql.raw(GROUP_COLUMN[group])}`);
  const positions = sql.raw(query.groupBy.map((_, i) => String(i + 1)).join(", "));
  const grouped =
    query.groupBy.length === 0
      ? Promise.resolve([])
      : database.rows<Record<string, unknown>>(
          sql`select ${sql.join(groups, sql`, `)}, ${USAGE_SUMS} from usage_records where ${where} group by ${positions} order by ${positions}`,
        );
  const [rows, total] = await Promise.all([grouped, database.rows<Record<string, unknown>>(sql`select ${USAGE_SUMS} from usage_records where ${where}`)]);
  return {
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    group_by: query.groupBy,
    totals: totalsOf(total[0]),
    data: rows.map((row) => {
      const keys: Record<string, string | null> = {};
      for (const group of query.groupBy) {
        const value = row[GROUP_COLUMN[group]];
        keys[GROUP_COLUMN[group]] = value === null || value === undefined ? null : String(value);
      }
      return { ...keys, ...totalsOf(row) };
    }),
  };
}
