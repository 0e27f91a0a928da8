import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import type { MonthlyTokensLoader } from "../limits/limiter.ts";

/**
 * The limiter's loader: billed tokens (input, cached included, plus output) recorded for an account
 * in the month starting at `monthStart`. Cache hits and token counts are free and not counted.
 */
export function loadMonthlyTokens(database: Database): MonthlyTokensLoader {
  return async (accountId, monthStart) => {
    const end = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1));
    const rows = await database.rows<{ tokens: string | number | null }>(sql`
      select coalesce(sum(input_tokens + output_tokens), 0) as tokens
      from usage_records
      where account_id = ${accountId}
        and created_at >= ${monthStart.toISOString()} and created_at < ${end.toISOString()}
        and not cache_hit and endpoint <> 'count_tokens'`);
    return Number(rows[0]?.tokens ?? 0);
  };
}
