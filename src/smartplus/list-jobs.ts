import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { JOB_STATES, smartplusJobs, type JobState, type SmartplusJobRow } from "../db/schema/index.ts";

export { JOB_STATES };

export interface JobListQuery {
  readonly limit: number;
  /** `next_cursor` of the page before. */
  readonly cursor?: { readonly createdAt: Date; readonly id: string } | undefined;
  readonly state?: JobState | undefined;
  readonly accountId?: string | undefined;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** A job as the admin API shows it: never its token or its blobs. */
export function renderJob(row: SmartplusJobRow) {
  return {
    id: row.id,
    account_id: row.accountId,
    state: row.state,
    phase: row.phase,
    task: row.task,
    model: row.model,
    effort: row.effort,
    file_count: row.fileCount,
    upload_bytes: row.uploadBytes,
    error: row.error,
    summary: row.summary,
    claims: row.claims,
    created_at: row.createdAt.toISOString(),
    queued_at: iso(row.queuedAt),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    expires_at: row.expiresAt.toISOString(),
  };
}

export function encodeJobCursor(row: Pick<SmartplusJobRow, "createdAt" | "id">): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString("base64url");
}

/** null when the cursor is not one this API made. */
export function decodeJobCursor(cursor: string): { createdAt: Date; id: string } | null {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|(job_[0-9A-Za-z]{1,64})$/.exec(Buffer.from(cursor, "base64url").toString());
  return match ? { createdAt: new Date(match[1]!), id: match[2]! } : null;
}

/** Smart+ jobs, newest first, a page at a time. */
export async function listJobs(database: Database, query: JobListQuery): Promise<{ data: ReturnType<typeof renderJob>[]; next_cursor: string | null }> {
  const conditions: SQL[] = [];
  if (query.state !== undefined) conditions.push(eq(smartplusJobs.state, query.state));
  if (query.accountId !== undefined) conditions.push(eq(smartplusJobs.accountId, query.accountId));
  if (query.cursor) {
    const { createdAt, id } = query.cursor;
    conditions.push(or(lt(smartplusJobs.createdAt, createdAt), and(eq(smartplusJobs.createdAt, createdAt), lt(smartplusJobs.id, id)))!);
  }
  const rows = await database.db
    .select()
    .from(smartplusJobs)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(smartplusJobs.createdAt), desc(smartplusJobs.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  return { data: page.map(renderJob), next_cursor: rows.length > query.limit ? encodeJobCursor(page.at(-1)!) : null };
}

/** One job, or null. */
export async function getJob(database: Database, jobId: string): Promise<ReturnType<typeof renderJob> | null> {
  const [row] = await database.db.select().from(smartplusJobs).where(eq(smartplusJobs.id, jobId));
  return row ? renderJob(row) : null;
}
