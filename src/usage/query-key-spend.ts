import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { monthDate } from "../db/month-date.ts";

export interface KeySpend {
  readonly requests: number;
  readonly costUsd: number;
}

/**
 * Requests and cost per key of one account in the UTC month starting at `monthStart`, from the
 * monthly sums (`usage_monthly`); with `keyId`, that key only. Keys without usage are absent.
 */
export async function queryKeySpend(database: Database, accountId: string, monthStart: Date, keyId?: string): Promise<Map<string, KeySpend>> {
  const rows = await database.rows<{ key_id: string; requests: string | number; cost: string | number | null }>(sql`
    select key_id, requests, cost_usd as cost from usage_monthly
    where account_id = ${accountId} and month = ${monthDate(monthStart)}
      and ${keyId === undefined ? sql`key_id <> ''` : sql`key_id = ${keyId}`}`);
  return new Map(rows.map((row) => [row.key_id, { requests: Number(row.requests), costUsd: Number(row.cost ?? 0) }]));
}
