import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { adminAudit } from "../db/schema/index.ts";

export interface AuditQuery {
  readonly limit: number;
  /** `next_cursor` of the page before: the id of its last entry. */
  readonly cursor?: number | undefined;
  readonly accountId?: string | undefined;
  readonly action?: string | undefined;
}

export interface AuditEntryView {
  readonly id: number;
  readonly at: string;
  readonly actor: string;
  readonly address: string | null;
  readonly action: string;
  readonly account_id: string | null;
  readonly key_id: string | null;
  readonly before: unknown;
  readonly after: unknown;
}

/** The audit log, newest first, a page at a time. */
export async function listAudit(database: Database, query: AuditQuery): Promise<{ data: AuditEntryView[]; next_cursor: string | null }> {
  const conditions: SQL[] = [];
  if (query.cursor !== undefined) conditions.push(lt(adminAudit.id, query.cursor));
  if (query.accountId !== undefined) conditions.push(eq(adminAudit.accountId, query.accountId));
  if (query.action !== undefined) conditions.push(eq(adminAudit.action, query.action));
  const rows = await database.db
    .select()
    .from(adminAudit)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(adminAudit.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    data: page.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: row.actor,
      address: row.address,
      action: row.action,
      account_id: row.accountId,
      key_id: row.keyId,
      before: row.before,
      after: row.after,
    })),
    next_cursor: rows.length > query.limit ? String(page.at(-1)!.id) : null,
  };
}
