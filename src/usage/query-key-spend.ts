import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";

export interface KeySpend {
  readonly requests: number;
  readonly costUsd: number;
}

/**
 * Requests and cost per key of one account since `monthStart` (UTC month), read through the
 * (account, time) index; with `keyId`, that key only. Keys without usage are absent.
 */
export async function queryKeySpend(database: Database, accountId: string, monthStart: Date, keyId?: string): Promise<Map<string, KeySpend>> {
  const end = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1));
  const rows = await database.rows<{ key_id: string; requests: string | number; cost: string | number | null }>(sql`
    select key_id, count(*) as requests, coalesce(sum(cost_usd), 0) as cost
    from usage_records
    where account_id = ${accountId} and created_at >= ${monthStart.toISOString()} and created_at < ${end.toISOString()}
      and key_id is not null ${keyId === undefined ? sql`` : sql`and key_id = ${keyId}`}
    group by key_id`);
  return new Map(rows.map((row) => [row.key_id, { requests: Number(row.requests), costUsd: Number(row.cost ?? 0) }]));
}
