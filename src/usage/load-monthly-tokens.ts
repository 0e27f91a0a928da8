import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import type { MonthlyTokensLoader } from "../limits/limiter.ts";
import { monthDate } from "../db/month-date.ts";

/**
 * The limiter's loader: billed tokens (input, cached included, plus output) recorded for an account
 * in the month starting at `monthStart`, from the monthly sums (`usage_monthly`), whose trigger
 * leaves out cache hits and token counts.
 */
export function loadMonthlyTokens(database: Database): MonthlyTokensLoader {
  return async (accountId, monthStart) => {
    const rows = await database.rows<{ tokens: string | number | null }>(sql`
      select coalesce(sum(billed_tokens), 0) as tokens from usage_monthly
      where account_id = ${accountId} and month = ${monthDate(monthStart)}`);
    return Number(rows[0]?.tokens ?? 0);
  };
}
