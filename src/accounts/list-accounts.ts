import { sql, type SQL } from "drizzle-orm";
import type { Plan } from "../canonical/plans.ts";
import type { Database } from "../db/client.ts";
import { monthDate } from "../db/month-date.ts";
import { effectiveLimits } from "./account-view.ts";
import type { AccountRow } from "../db/schema/index.ts";

export interface AccountListQuery {
  readonly limit: number;
  /** `next_cursor` of the page before. */
  readonly cursor?: string | undefined;
  readonly plan?: Plan | undefined;
  readonly suspended?: boolean | undefined;
  /** Part of the e-mail address, any case. */
  readonly email?: string | undefined;
  /** Start of the month whose tokens and cost are summed (UTC). */
  readonly monthStart: Date;
}

export interface ListedAccount {
  readonly id: string;
  readonly plan: Plan;
  readonly default_tier: string;
  readonly email: string | null;
  readonly suspended: boolean;
  readonly limits: { requests_per_minute: number | null; concurrent_requests: number | null; tokens_per_month: number | null };
  readonly created_at: string;
  readonly keys: { readonly active: number; readonly total: number };
  readonly last_used_at: string | null;
  /** This month's billable tokens (input and output, no cache hits), requests and cost. */
  readonly month: { readonly tokens: number; readonly requests: number; readonly cost_usd: number };
}

export interface AccountPage {
  readonly data: readonly ListedAccount[];
  readonly next_cursor: string | null;
}

/** A cursor names the last account of a page: its creation time (µs) and id. */
function encodeCursor(createdAtUs: string, id: string): string {
  return Buffer.from(`${createdAtUs}|${id}`).toString("base64url");
}

/** null when the cursor is not one this API made. */
export function decodeAccountCursor(cursor: string): { createdAtUs: string; id: string } | null {
  const text = Buffer.from(cursor, "base64url").toString();
  const match = /^(\d{1,20})\|(acct_[0-9A-Za-z]{1,64})$/.exec(text);
  return match ? { createdAtUs: match[1]!, id: match[2]! } : null;
}

const iso = (value: unknown): string | null => (value === null || value === undefined ? null : new Date(value as string).toISOString());

/**
 * A page of accounts, newest first, with each one's keys, last use and this month's usage, read
 * from the monthly sums (a few rows per account, however many requests it made).
 */
export async function listAccounts(database: Database, query: AccountListQuery): Promise<AccountPage> {
  const conditions: SQL[] = [sql`true`];
  if (query.plan !== undefined) conditions.push(sql`a.plan = ${query.plan}`);
  if (query.suspended !== undefined) conditions.push(sql`a.suspended = ${query.suspended}`);
  if (query.email !== undefined && query.email !== "") conditions.push(sql`strpos(lower(coalesce(a.email, '')), lower(${query.email})) > 0`);
  const after = query.cursor === undefined ? null : decodeAccountCursor(query.cursor);
  if (after) {
    conditions.push(sql`(floor(extract(epoch from a.created_at) * 1000000)::bigint, a.id) < (${after.createdAtUs}::bigint, ${after.id})`);
  }
  const rows = await database.rows<Record<string, unknown>>(sql`
    select a.*, floor(extract(epoch from a.created_at) * 1000000)::bigint::text as created_us,
      k.active_keys, k.total_keys, k.last_used_at as keys_last_used_at,
      u.tokens as month_tokens, u.requests as month_requests, u.cost_usd as month_cost_usd
    from accounts a
    left join lateral (
      select count(*) filter (where revoked_at is null) as active_keys, count(*) as total_keys, max(last_used_at) as last_used_at
      from api_keys where account_id = a.id
    ) k on true
    left join lateral (
      select coalesce(sum(billed_tokens), 0) as tokens, coalesce(sum(requests), 0) as requests, coalesce(sum(cost_usd), 0) as cost_usd
      from usage_monthly where account_id = a.id and month = ${monthDate(query.monthStart)}
    ) u on true
    where ${sql.join(conditions, sql` and `)}
    order by floor(extract(epoch from a.created_at) * 1000000)::bigint desc, a.id desc
    limit ${query.limit + 1}`);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    data: page.map((row) => {
      const limits = effectiveLimits({
        plan: row.plan as AccountRow["plan"],
        requestsPerMinute: row.requests_per_minute === null ? null : Number(row.requests_per_minute),
        concurrentRequests: row.concurrent_requests === null ? null : Number(row.concurrent_requests),
        tokensPerMonth: row.tokens_per_month === null ? null : Number(row.tokens_per_month),
      });
      return {
        id: String(row.id),
        plan: row.plan as Plan,
        default_tier: String(row.default_tier),
        email: row.email === null ? null : String(row.email),
        suspended: row.suspended === true || row.suspended === "t",
        limits: { requests_per_minute: limits.requestsPerMinute, concurrent_requests: limits.concurrentRequests, tokens_per_month: limits.tokensPerMonth },
        created_at: iso(row.created_at)!,
        keys: { active: Number(row.active_keys ?? 0), total: Number(row.total_keys ?? 0) },
        last_used_at: iso(row.keys_last_used_at),
        month: { tokens: Number(row.month_tokens ?? 0), requests: Number(row.month_requests ?? 0), cost_usd: Math.round(Number(row.month_cost_usd ?? 0) * 1e6) / 1e6 },
      };
    }),
    next_cursor: rows.length > query.limit && last ? encodeCursor(String(last.created_us), String(last.id)) : null,
  };
}
