import type { DrizzleDatabase } from "../db/client.ts";
import { adminAudit, type AccountRow, type ApiKeyRow } from "../db/schema/index.ts";

/** Who made a write and from where, as the audit log keeps it. */
export interface AuditActor {
  /** `token`, or `console session ses_…`. */
  readonly actor: string;
  readonly address?: string | undefined;
}

export type AuditAction =
  | "account.create"
  | "account.update"
  | "account.suspend"
  | "account.unsuspend"
  | "key.issue"
  | "key.update"
  | "key.revoke"
  | "config.reload";

export interface AuditEntry {
  readonly action: AuditAction;
  readonly accountId?: string | null;
  readonly keyId?: string | null;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** An account as the audit log shows it: its stored settings, snake_case like the API. */
export function auditedAccount(row: AccountRow): Record<string, unknown> {
  return {
    id: row.id,
    plan: row.plan,
    default_tier: row.defaultTier,
    email: row.email,
    suspended: row.suspended,
    requests_per_minute: row.requestsPerMinute,
    concurrent_requests: row.concurrentRequests,
    tokens_per_month: row.tokensPerMonth,
  };
}

/** A key as the audit log shows it: never the key or its hash. */
export function auditedKey(row: Omit<ApiKeyRow, "keyHash" | "lastUsedAt"> & Partial<Pick<ApiKeyRow, "keyHash" | "lastUsedAt">>): Record<string, unknown> {
  return {
    id: row.id,
    account_id: row.accountId,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt ? row.revokedAt.toISOString() : null,
    name: row.name,
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    allowed_tiers: row.allowedTiers,
    requests_per_minute: row.requestsPerMinute,
    monthly_spend_usd: row.monthlySpendUsd,
  };
}

/** Adds one audit row, in the caller's transaction so a write and its record stand or fall together. */
export async function recordAudit(executor: Pick<DrizzleDatabase, "insert">, by: AuditActor, entry: AuditEntry): Promise<void> {
  await executor.insert(adminAudit).values({
    actor: by.actor,
    address: by.address ?? null,
    action: entry.action,
    accountId: entry.accountId ?? null,
    keyId: entry.keyId ?? null,
    before: entry.before ?? null,
    after: entry.after ?? null,
  });
}
