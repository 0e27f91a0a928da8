import { Elysia } from "elysia";
import { decodeAccountCursor, listAccounts } from "../../accounts/list-accounts.ts";
import { listAudit } from "../../accounts/list-audit.ts";
import { PLANS, type Plan } from "../../canonical/plans.ts";
import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { apiKeys } from "../../db/schema/index.ts";
import { monthWindow } from "../../limits/month-window.ts";
import { adminError } from "../../ops/admin-error.ts";
import { queryUsageReport, USAGE_GROUPS, type UsageGroup } from "../../usage/query-usage-report.ts";
import { usageReportCsv } from "../../usage/usage-report-csv.ts";
import type { AdminContext, AdminHandler } from "./admin-guard.ts";
import { decodeJobCursor, getJob, JOB_STATES, listJobs } from "../../smartplus/list-jobs.ts";
import type { JobState } from "../../db/schema/index.ts";
import { readRequestUrl } from "../../pipeline/read-request-url.ts";

const badRequest = (param: string, message: string) => adminError(400, "invalid_request_error", `${param}: ${message}`, { param });
const MAX_PAGE = 200;
const DEFAULT_PAGE = 50;
const DAY_MS = 86_400_000;

class QueryError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

function pageSize(query: URLSearchParams): number {
  const text = query.get("limit");
  if (text === null) return DEFAULT_PAGE;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_PAGE) throw new QueryError("limit", `must be an integer from 1 to ${MAX_PAGE}`);
  return n;
}

/** `YYYY-MM-DD` (a whole UTC day) or an ISO 8601 time with its zone. */
function parseInstant(param: string, text: string, endOfDay: boolean): Date {
  if (/^\d{4}-\d\d-\d\d$/.test(text)) {
    const day = Date.parse(`${text}T00:00:00Z`);
    if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== text) throw new QueryError(param, "not a date");
    return new Date(endOfDay ? day + DAY_MS : day);
  }
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z|[+-]\d\d:\d\d)$/.test(text) || Number.isNaN(Date.parse(text))) {
    throw new QueryError(param, "must be a date (YYYY-MM-DD) or an ISO 8601 time with its zone");
  }
  return new Date(text);
}

function parseGroups(text: string | null): UsageGroup[] {
  if (text === null) return ["day"];
  const groups = text.split(",").map((part) => part.trim());
  for (const group of groups) {
    if (!(USAGE_GROUPS as readonly string[]).includes(group)) throw new QueryError("group_by", `must be one or more of ${USAGE_GROUPS.join(", ")}, comma-separated`);
  }
  if (new Set(groups).size !== groups.length) throw new QueryError("group_by", "names a group twice");
  if (groups.includes("day") && groups.includes("hour")) throw new QueryError("group_by", "day and hour cannot both be given");
  return groups as UsageGroup[];
}

const wantsCsv = (request: Request, query: URLSearchParams): boolean =>
  query.get("format") === "csv" || (request.headers.get("accept") ?? "").toLowerCase().includes("text/csv");

/** Runs a handler whose query errors are answered as 400 naming the parameter. */
const readingQuery =
  (handler: (request: Request, query: URLSearchParams) => Promise<Response>): AdminHandler =>
  async (request) => {
    try {
      return await handler(request, readRequestUrl(request).searchParams);
    } catch (err) {
      if (err instanceof QueryError) return badRequest(err.param, err.message);
      throw err;
    }
  };

/**
 * The fleet-wide admin reads: the accounts list, usage reports across accounts (JSON or CSV), the
 * audit log of admin writes, and the Smart+ jobs.
 */
export function adminFleetRoutes(guard: (handler: AdminHandler) => (context: AdminContext) => Promise<Response>, database: Database): Elysia {
  const noBody = { parse: "none" as const };
  return new Elysia()
    .get(
      "/admin/accounts",
      guard(
        readingQuery(async (_request, query) => {
          const plan = query.get("plan");
          if (plan !== null && !(PLANS as readonly string[]).includes(plan)) throw new QueryError("plan", `must be one of ${PLANS.join(", ")}`);
          const suspended = query.get("suspended");
          if (suspended !== null && suspended !== "true" && suspended !== "false") throw new QueryError("suspended", "must be true or false");
          const cursor = query.get("cursor") ?? undefined;
          if (cursor !== undefined && !decodeAccountCursor(cursor)) throw new QueryError("cursor", "not a cursor from this API");
          const email = query.get("email") ?? undefined;
          if (email !== undefined && email.length > 320) throw new QueryError("email", "at most 320 characters");
          const page = await listAccounts(database, {
            limit: pageSize(query),
            cursor,
            plan: (plan ?? undefined) as Plan | undefined,
            suspended: suspended === null ? undefined : suspended === "true",
            email,
            monthStart: new Date(monthWindow(Date.now()).start),
          });
          return Response.json({ ...page, month: monthWindow(Date.now()).key });
        }),
      ),
      noBody,
    )
    .get(
      "/admin/usage",
      guard(
        readingQuery(async (request, query) => {
          const now = Date.now();
          const fromText = query.get("from");
          const toText = query.get("to");
          const from = fromText === null ? new Date(monthWindow(now).start) : parseInstant("from", fromText, false);
          const to = toText === null ? new Date(now) : parseInstant("to", toText, true);
          if (to <= from) throw new QueryError("to", "must be after from");
          const groupBy = parseGroups(query.get("group_by"));
          let accountId = query.get("account") ?? undefined;
          const keyId = query.get("key") ?? undefined;
          if (keyId !== undefined) {
            // The key's account puts the (account, time) index to work.
            const [key] = await database.db.select({ accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, keyId));
            if (!key) return adminError(404, "not_found_error", `key ${keyId} not found`);
            if (accountId !== undefined && accountId !== key.accountId) throw new QueryError("key", `key ${keyId} is not a key of account ${accountId}`);
            accountId = key.accountId;
          }
          const report = await queryUsageReport(database, { from, to, groupBy, accountId, keyId });
          if (!wantsCsv(request, query)) return Response.json(report);
          const name = `usage-${report.from.slice(0, 10)}-${report.to.slice(0, 10)}.csv`;
          return new Response(usageReportCsv(report), {
            headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"` },
          });
        }),
      ),
      noBody,
    )
    .get(
      "/admin/audit",
      guard(
        readingQuery(async (_request, query) => {
          const cursorText = query.get("cursor");
          if (cursorText !== null && !/^\d{1,18}$/.test(cursorText)) throw new QueryError("cursor", "not a cursor from this API");
          const page = await listAudit(database, {
            limit: pageSize(query),
            cursor: cursorText === null ? undefined : Number(cursorText),
            accountId: query.get("account") ?? undefined,
            action: query.get("action") ?? undefined,
          });
          return Response.json(page);
        }),
      ),
      noBody,
    )
    .get(
      "/admin/smartplus/jobs",
      guard(
        readingQuery(async (_request, query) => {
          const state = query.get("state");
          if (state !== null && !(JOB_STATES as readonly string[]).includes(state)) throw new QueryError("state", `must be one of ${JOB_STATES.join(", ")}`);
          const cursorText = query.get("cursor");
          const cursor = cursorText === null ? undefined : decodeJobCursor(cursorText);
          if (cursor === null) throw new QueryError("cursor", "not a cursor from this API");
          return Response.json(
            await listJobs(database, { limit: pageSize(query), cursor, state: (state ?? undefined) as JobState | undefined, accountId: query.get("account") ?? undefined }),
          );
        }),
      ),
      noBody,
    )
    .get(
      "/admin/smartplus/jobs/:job_id",
      guard(async (_request, { job_id = "" }) => {
        const job = await getJob(database, job_id);
        return job ? Response.json(job) : adminError(404, "not_found_error", `job ${job_id} not found`);
      }),
      noBody,
    ) as unknown as Elysia;
}
