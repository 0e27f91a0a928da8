import { and, asc, count, eq, isNull, sql } from "drizzle-orm";
import { invalidRequest } from "../canonical/gateway-error.ts";
import type { Tier } from "../canonical/tier.ts";
import type { Database, DrizzleDatabase } from "../db/client.ts";
import { accounts, apiKeys, type AccountRow, type ApiKeyRow } from "../db/schema/index.ts";
import { toAccount, type Account } from "./account-view.ts";
import { AUTH_CHANNEL, encodeAuthEvent, type AuthEvent } from "./auth-events.ts";
import { generateApiKey, generateId } from "./generate-api-key.ts";
import { PLAN_TIERS, type Plan } from "../canonical/plans.ts";
import { auditedAccount, auditedKey, recordAudit, type AuditActor } from "./record-audit.ts";

export type { Account } from "./account-view.ts";

/** A freshly issued key: the only moment the secret exists outside the client. */
export interface IssuedKey {
  readonly id: string;
  readonly key: string;
  readonly prefix: string;
  readonly createdAt: Date;
}

/** A key as listed: never the key or its hash. */
export interface KeyInfo {
  readonly id: string;
  readonly prefix: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly name: string | null;
  readonly expiresAt: Date | null;
  /** null = the plan's tiers. */
  readonly allowedTiers: readonly Tier[] | null;
  readonly requestsPerMinute: number | null;
  readonly monthlySpendUsd: number | null;
}

/** A key's controls as set by the operator: absent = unchanged (at issue: none), null = cleared. */
export interface KeyControls {
  readonly name?: string | null | undefined;
  readonly expiresAt?: Date | null | undefined;
  readonly allowedTiers?: readonly Tier[] | null | undefined;
  readonly requestsPerMinute?: number | null | undefined;
  readonly monthlySpendUsd?: number | null | undefined;
}

export interface RevokedKey {
  readonly id: string;
  readonly accountId: string;
  readonly revokedAt: Date;
}

export interface NewAccount {
  readonly plan: Plan;
  /** Default `normal`; must be a tier of the plan. */
  readonly defaultTier?: Tier | undefined;
  readonly email?: string | null | undefined;
}

/** Per-account limits; only Enterprise accounts have them. null = no cap, absent = unchanged. */
export interface LimitsPatch {
  readonly requestsPerMinute?: number | null | undefined;
  readonly concurrentRequests?: number | null | undefined;
  readonly tokensPerMonth?: number | null | undefined;
}

export interface AccountPatch {
  readonly plan?: Plan | undefined;
  readonly defaultTier?: Tier | undefined;
  readonly limits?: LimitsPatch | undefined;
}

/**
 * Every operator verb on accounts and keys. Each change is announced on AUTH_CHANNEL after it
 * commits, so key caches on every instance drop what it touched. Rule violations (a tier outside
 * the plan, limits on a plan without them) throw a 400 GatewayError whose `param` names the field.
 * A write given `by` is recorded in the audit log in its own transaction (before and after).
 */
export interface AccountStore {
  createAccount(input: NewAccount, by?: AuditActor): Promise<{ account: Account; key: IssuedKey }>;
  getAccount(accountId: string): Promise<Account | null>;
  countAccounts(): Promise<number>;
  /** null when the account does not exist. */
  issueKey(accountId: string, controls?: KeyControls, by?: AuditActor): Promise<IssuedKey | null>;
  /** Changes a key's controls; null when the key does not exist. A revoked key cannot be changed (400). */
  updateKey(keyId: string, controls: KeyControls, by?: AuditActor): Promise<KeyInfo | null>;
  getKey(keyId: string): Promise<(KeyInfo & { readonly accountId: string }) | null>;
  /** Registers the hash of a key issued elsewhere (e.g. an older-prefix key being carried over). */
  importKeyHash(accountId: string, keyHash: string, prefix: string): Promise<KeyInfo | null>;
  listKeys(accountId: string): Promise<KeyInfo[] | null>;
  /** Idempotent: revoking a revoked key answers its first revocation time (and records nothing). null when unknown. */
  revokeKey(keyId: string, by?: AuditActor): Promise<RevokedKey | null>;
  setSuspended(accountId: string, suspended: boolean, by?: AuditActor): Promise<Account | null>;
  updateAccount(accountId: string, patch: AccountPatch, by?: AuditActor): Promise<Account | null>;
}

type Executor = Pick<DrizzleDatabase, "insert">;

export function assertTierInPlan(plan: Plan, tier: Tier, field = "default_tier"): void {
  if (!PLAN_TIERS[plan].includes(tier)) {
    throw invalidRequest(
      `${field}: tier ${tier} is not included in plan ${plan}; available: ${PLAN_TIERS[plan].join(", ")}`,
      field,
    );
  }
}

/** Inserts an account and its first key; shared with the demo seed, which runs it under a lock. */
export async function insertAccountWithKey(
  executor: Executor,
  input: NewAccount,
): Promise<{ row: AccountRow; key: IssuedKey & { row: ApiKeyRow } }> {
  const defaultTier = input.defaultTier ?? "normal";
  assertTierInPlan(input.plan, defaultTier);
  const [row] = await executor
    .insert(accounts)
    .values({ id: generateId("acct_"), plan: input.plan, defaultTier, email: input.email ?? null })
    .returning();
  if (!row) throw new Error("account insert returned no row");
  const key = await insertKey(executor, row.id);
  return { row, key };
}

/** The stored values of a key's controls, checked against the account's plan; throws a 400 naming the field. */
function controlValues(plan: Plan, controls: KeyControls, now: number): Partial<typeof apiKeys.$inferInsert> {
  const values: Partial<typeof apiKeys.$inferInsert> = {};
  if (controls.name !== undefined) values.name = controls.name;
  if (controls.expiresAt !== undefined) {
    if (controls.expiresAt !== null && controls.expiresAt.getTime() <= now) throw invalidRequest("expires_at: must be in the future (to stop a key now, revoke it)", "expires_at");
    values.expiresAt = controls.expiresAt;
  }
  if (controls.allowedTiers !== undefined) {
    if (controls.allowedTiers !== null) {
      if (controls.allowedTiers.length === 0) throw invalidRequest("allowed_tiers: name at least one tier, or null for all of the plan's", "allowed_tiers");
      for (const tier of controls.allowedTiers) assertTierInPlan(plan, tier, "allowed_tiers");
    }
    values.allowedTiers = controls.allowedTiers === null ? null : [...new Set(controls.allowedTiers)];
  }
  if (controls.requestsPerMinute !== undefined) values.requestsPerMinute = controls.requestsPerMinute;
  if (controls.monthlySpendUsd !== undefined) values.monthlySpendUsd = controls.monthlySpendUsd;
  return values;
}

async function insertKey(executor: Executor, accountId: string, controls: Partial<typeof apiKeys.$inferInsert> = {}): Promise<IssuedKey & { row: ApiKeyRow }> {
  const generated = generateApiKey();
  const [row] = await executor
    .insert(apiKeys)
    .values({ ...controls, id: generateId("key_"), accountId, keyHash: generated.hash, prefix: generated.prefix })
    .returning();
  if (!row) throw new Error("key insert returned no row");
  return { id: row.id, key: generated.key, prefix: generated.prefix, createdAt: row.createdAt, row };
}

/** The issued key without its row (the row holds the hash). */
const issued = ({ id, key, prefix, createdAt }: IssuedKey): IssuedKey => ({ id, key, prefix, createdAt });

type KeyInfoRow = Pick<ApiKeyRow, "id" | "prefix" | "createdAt" | "lastUsedAt" | "revokedAt" | "name" | "expiresAt" | "allowedTiers" | "requestsPerMinute" | "monthlySpendUsd">;

function toKeyInfo(row: KeyInfoRow): KeyInfo {
  return {
    id: row.id,
    prefix: row.prefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
    name: row.name,
    expiresAt: row.expiresAt,
    allowedTiers: row.allowedTiers,
    requestsPerMinute: row.requestsPerMinute,
    monthlySpendUsd: row.monthlySpendUsd,
  };
}

export async function announce(database: Database, event: AuthEvent): Promise<void> {
  await database.notify(AUTH_CHANNEL, encodeAuthEvent(event));
}

export function createAccountStore(database: Database): AccountStore {
  const { db } = database;

  const keyColumns = {
    id: apiKeys.id,
    prefix: apiKeys.prefix,
    createdAt: apiKeys.createdAt,
    lastUsedAt: apiKeys.lastUsedAt,
    revokedAt: apiKeys.revokedAt,
    name: apiKeys.name,
    expiresAt: apiKeys.expiresAt,
    allowedTiers: apiKeys.allowedTiers,
    requestsPerMinute: apiKeys.requestsPerMinute,
    monthlySpendUsd: apiKeys.monthlySpendUsd,
  };

  async function accountExists(accountId: string): Promise<boolean> {
    const rows = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
    return rows.length > 0;
  }


  return {
    async createAccount(input, by) {
      const { row, key } = await db.transaction(async (tx) => {
        const created = await insertAccountWithKey(tx, input);
        if (by) {
          const after = { ...auditedAccount(created.row), key: auditedKey(created.key.row) };
          await recordAudit(tx, by, { action: "account.create", accountId: created.row.id, keyId: created.key.id, after });
        }
        return created;
      });
      await announce(database, { kind: "key-created", accountId: row.id });
      return { account: toAccount(row), key: issued(key) };
    },

    async getAccount(accountId) {
      const [row] = await db.select().from(accounts).where(eq(accounts.id, accountId));
      return row ? toAccount(row) : null;
    },

    async countAccounts() {
      const [row] = await db.select({ n: count() }).from(accounts);
      return row?.n ?? 0;
    },

    async issueKey(accountId, controls = {}, by) {
      const key = await db.transaction(async (tx) => {
        const [account] = await tx.select({ id: accounts.id, plan: accounts.plan }).from(accounts).where(eq(accounts.id, accountId)).for("share");
        if (!account) return null;
        const inserted = await insertKey(tx, accountId, controlValues(account.plan, controls, Date.now()));
        if (by) await recordAudit(tx, by, { action: "key.issue", accountId, keyId: inserted.id, after: auditedKey(inserted.row) });
        return inserted;
      });
      if (!key) return null;
      await announce(database, { kind: "key-created", accountId });
      return issued(key);
    },

    async importKeyHash(accountId, keyHash, prefix) {
      if (!/^[0-9a-f]{64}$/.test(keyHash)) throw invalidRequest("key_hash: expected 64 lowercase hex characters", "key_hash");
      if (!(await accountExists(accountId))) return null;
      const [row] = await db
        .insert(apiKeys)
        .values({ id: generateId("key_"), accountId, keyHash, prefix })
        .returning(keyColumns);
      if (!row) throw new Error("key insert returned no row");
      await announce(database, { kind: "key-created", accountId });
      return toKeyInfo(row);
    },

    async updateKey(keyId, controls, by) {
      const row = await db.transaction(async (tx) => {
        const [current] = await tx.select().from(apiKeys).where(eq(apiKeys.id, keyId)).for("update");
        if (!current) return null;
        if (current.revokedAt) throw invalidRequest(`key ${keyId} is revoked; its controls cannot change`, "key_id");
        const [account] = await tx.select({ plan: accounts.plan }).from(accounts).where(eq(accounts.id, current.accountId));
        const values = controlValues(account!.plan, controls, Date.now());
        if (Object.keys(values).length === 0) return current;
        const [updated] = await tx.update(apiKeys).set(values).where(eq(apiKeys.id, keyId)).returning();
        if (updated && by) await recordAudit(tx, by, { action: "key.update", accountId: current.accountId, keyId, before: auditedKey(current), after: auditedKey(updated) });
        return updated ?? null;
      });
      if (!row) return null;
      await announce(database, { kind: "key-changed", accountId: row.accountId, keyId });
      return toKeyInfo(row);
    },

    async getKey(keyId) {
      const [row] = await db.select({ ...keyColumns, accountId: apiKeys.accountId }).from(apiKeys).where(eq(apiKeys.id, keyId));
      return row ? { ...toKeyInfo(row), accountId: row.accountId } : null;
    },

    async listKeys(accountId) {
      if (!(await accountExists(accountId))) return null;
      const rows = await db
        .select(keyColumns)
        .from(apiKeys)
        .where(eq(apiKeys.accountId, accountId))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
      return rows.map(toKeyInfo);
    },

    async revokeKey(keyId, by) {
      const row = await db.transaction(async (tx) => {
        const [current] = await tx.select().from(apiKeys).where(eq(apiKeys.id, keyId)).for("update");
        if (!current || current.revokedAt) return current ?? null;
        const [updated] = await tx
          .update(apiKeys)
          .set({ revokedAt: sql`now()` })
          .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
          .returning();
        if (updated && by) {
          await recordAudit(tx, by, { action: "key.revoke", accountId: updated.accountId, keyId, before: auditedKey(current), after: auditedKey(updated) });
        }
        return updated ?? null;
      });
      if (!row?.revokedAt) return null;
      // Announced again on a repeat too: a retry after a failed notify must still reach everyone.
      await announce(database, { kind: "key-revoked", accountId: row.accountId, keyId: row.id });
      return { id: row.id, accountId: row.accountId, revokedAt: row.revokedAt };
    },

    async setSuspended(accountId, suspended, by) {
      const row = await db.transaction(async (tx) => {
        const [current] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for("update");
        if (!current) return null;
        const [updated] = await tx
          .update(accounts)
          .set({ suspended, updatedAt: sql`now()` })
          .where(eq(accounts.id, accountId))
          .returning();
        if (updated && by) {
          const action = suspended ? "account.suspend" : "account.unsuspend";
          await recordAudit(tx, by, { action, accountId, before: auditedAccount(current), after: auditedAccount(updated) });
        }
        return updated ?? null;
      });
      if (!row) return null;
      await announce(database, { kind: "account", accountId });
      return toAccount(row);
    },

    async updateAccount(accountId, patch, by) {
      const row = await db.transaction(async (tx) => {
        const [current] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for("update");
        if (!current) return null;
        const plan = patch.plan ?? current.plan;
        const defaultTier = patch.defaultTier ?? current.defaultTier;
        assertTierInPlan(plan, defaultTier);
        const values: Partial<typeof accounts.$inferInsert> = { plan, defaultTier };
        if (patch.limits !== undefined) {
          if (plan !== "Enterprise") {
            throw invalidRequest(`limits: per-account limits are only for Enterprise accounts (plan is ${plan})`, "limits");
          }
          const { requestsPerMinute, concurrentRequests, tokensPerMonth } = patch.limits;
          if (requestsPerMinute !== undefined) values.requestsPerMinute = requestsPerMinute;
          if (concurrentRequests !== undefined) values.concurrentRequests = concurrentRequests;
          if (tokensPerMonth !== undefined) values.tokensPerMonth = tokensPerMonth;
        } else if (plan !== "Enterprise") {
          // Leaving Enterprise drops the custom limits, so a later upgrade starts uncapped, not stale.
          Object.assign(values, { requestsPerMinute: null, concurrentRequests: null, tokensPerMonth: null });
        }
        const [updated] = await tx
          .update(accounts)
          .set({ ...values, updatedAt: sql`now()` })
          .where(eq(accounts.id, accountId))
          .returning();
        if (updated && by) await recordAudit(tx, by, { action: "account.update", accountId, before: auditedAccount(current), after: auditedAccount(updated) });
        return updated ?? null;
      });
      if (!row) return null;
      await announce(database, { kind: "account", accountId });
      return toAccount(row);
    },
  };
}
