import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { retryDroppedConnection } from "../db/retry-dropped-connection.ts";
import { accounts, apiKeys } from "../db/schema/index.ts";
import { effectiveLimits } from "./account-view.ts";
import { AUTH_CHANNEL, decodeAuthEvent } from "./auth-events.ts";
import { hashApiKey } from "./generate-api-key.ts";
import { describeDbError, withoutQueryText } from "../db/sanitize-db-error.ts";
import type { KeyAuthenticator, KeyLimits, Principal } from "./principal.ts";
import type { Tier } from "../canonical/tier.ts";
import { dropOldest, trimmedSize } from "../canonical/drop-oldest.ts";

export interface KeyAuthenticatorOptions {
  readonly database: Database;
  /** How long a resolved key may be served from memory; the safety net behind invalidation. 0 = never cache. */
  readonly ttlMs: number;
  /** How long an unknown key is remembered as unknown. Default: min(5 s, ttlMs). */
  readonly unknownTtlMs?: number;
  readonly maxEntries?: number;
  readonly maxUnknownEntries?: number;
  /** A key's last_used_at is written at most once per this interval. Default 60 s. */
  readonly lastUsedIntervalMs?: number;
  /** How often queued last_used_at updates are written. Default 5 s. */
  readonly flushIntervalMs?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly principal: Principal;
  readonly expiresAt: number;
}

/** The key's controls as the principal holds them; null when it has none, so the hot path checks nothing more. */
function keyLimitsOf(row: { allowedTiers: Tier[] | null; keyRequestsPerMinute: number | null; monthlySpendUsd: number | null }): KeyLimits | null {
  if (row.allowedTiers === null && row.keyRequestsPerMinute === null && row.monthlySpendUsd === null) return null;
  return Object.freeze({
    allowedTiers: row.allowedTiers === null ? null : Object.freeze([...row.allowedTiers]),
    requestsPerMinute: row.keyRequestsPerMinute,
    monthlySpendUsd: row.monthlySpendUsd,
  });
}

/** Longer than any key we issue or ever imported; anything bigger is refused without hashing. */
const MAX_KEY_LENGTH = 512;

/**
 * key → principal with an in-process cache keyed by the key's SHA-256 (the key itself is not kept).
 * Changes announced on AUTH_CHANNEL drop the affected entries; a lost LISTEN connection flushes
 * everything and, until it is back, nothing is cached, so no change can be missed.
 */
export async function createKeyAuthenticator(options: KeyAuthenticatorOptions): Promise<KeyAuthenticator> {
  const { database, ttlMs } = options;
  const { db } = database;
  const now = options.now ?? Date.now;
  const unknownTtlMs = options.unknownTtlMs ?? Math.min(5_000, ttlMs);
  const maxEntries = options.maxEntries ?? 100_000;
  const maxUnknownEntries = options.maxUnknownEntries ?? 10_000;
  const lastUsedIntervalMs = options.lastUsedIntervalMs ?? 60_000;

  const known = new Map<string, Entry>();
  const hashesByAccount = new Map<string, Set<string>>();
  const hashByKeyId = new Map<string, string>();
  const unknown = new Map<string, number>();
  const inflight = new Map<string, Promise<Principal | null>>();
  /** Bumped by every invalidation; a lookup that straddles one does not cache what it read. */
  let generation = 0;
  let listening = false;
  let closed = false;

  function forget(hash: string): void {
    const entry = known.get(hash);
    if (!entry) return;
    known.delete(hash);
    unindex(hash, entry);
  }

  /** Drops an entry, already gone from `known`, from the indexes beside it. */
  function unindex(hash: string, entry: Entry): void {
    hashByKeyId.delete(entry.principal.keyId);
    const set = hashesByAccount.get(entry.principal.accountId);
    set?.delete(hash);
    if (set?.size === 0) hashesByAccount.delete(entry.principal.accountId);
  }

  function flushAll(): void {
    generation++;
    known.clear();
    hashesByAccount.clear();
    hashByKeyId.clear();
    unknown.clear();
  }

  /** `keyExpiresAt`: when the key itself stops working; its entry goes then at the latest. */
  function remember(hash: string, principal: Principal, keyExpiresAt: number | null): void {
    if (ttlMs <= 0) return;
    forget(hash);
    if (known.size >= maxEntries) dropOldest(known, trimmedSize(maxEntries - 1), unindex);
    const until = now() + ttlMs;
    known.set(hash, { principal, expiresAt: keyExpiresAt === null ? until : Math.min(until, keyExpiresAt) });
    hashByKeyId.set(principal.keyId, hash);
    let set = hashesByAccount.get(principal.accountId);
    if (!set) hashesByAccount.set(principal.accountId, (set = new Set()));
    set.add(hash);
  }

  function rememberUnknown(hash: string): void {
    if (unknownTtlMs <= 0) return;
    unknown.delete(hash);
    // Room for the one added next; a flood of unknown keys must not make each one cost more.
    if (unknown.size >= maxUnknownEntries) dropOldest(unknown, trimmedSize(maxUnknownEntries - 1));
    unknown.set(hash, now() + unknownTtlMs);
  }

  function onPayload(payload: string): void {
    const event = decodeAuthEvent(payload);
    if (!event) return void flushAll();
    generation++;
    switch (event.kind) {
      case "account":
        for (const hash of [...(hashesByAccount.get(event.accountId) ?? [])]) forget(hash);
        return;
      case "key-revoked":
      case "key-changed": {
        const hash = hashByKeyId.get(event.keyId);
        if (hash) forget(hash);
        return;
      }
      case "key-created":
        unknown.clear();
        return;
      default: {
        const unreachable: never = event;
        void unreachable;
      }
    }
  }

  const lastUsed = createLastUsedWriter(database, lastUsedIntervalMs, options.flushIntervalMs ?? 5_000, now);

  async function load(hash: string): Promise<Principal | null> {
    const startedAt = generation;
    const query = () => db
      .select({
        keyId: apiKeys.id,
        accountId: accounts.id,
        plan: accounts.plan,
        defaultTier: accounts.defaultTier,
        suspended: accounts.suspended,
        requestsPerMinute: accounts.requestsPerMinute,
        concurrentRequests: accounts.concurrentRequests,
        tokensPerMonth: accounts.tokensPerMonth,
        keyExpiresAt: apiKeys.expiresAt,
        allowedTiers: apiKeys.allowedTiers,
        keyRequestsPerMinute: apiKeys.requestsPerMinute,
        monthlySpendUsd: apiKeys.monthlySpendUsd,
      })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      // An expired key is refused like a revoked one.
      .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`))))
      .limit(1);
    const [row] = await retryDroppedConnection(() => withoutQueryText(query()));
    const principal: Principal | null = row
      ? Object.freeze({
          accountId: row.accountId,
          keyId: row.keyId,
          plan: row.plan,
          defaultTier: row.defaultTier,
          suspended: row.suspended,
          limits: Object.freeze(effectiveLimits(row)),
          keyLimits: keyLimitsOf(row),
        })
      : null;
    if (listening && !closed && generation === startedAt) {
      if (principal) remember(hash, principal, row?.keyExpiresAt ? row.keyExpiresAt.getTime() : null);
      else rememberUnknown(hash);
    }
    return principal;
  }

  function lookup(hash: string): Promise<Principal | null> {
    let pending = inflight.get(hash);
    if (!pending) {
      pending = load(hash).finally(() => inflight.delete(hash));
      inflight.set(hash, pending);
    }
    return pending.then((principal) => {
      if (principal) lastUsed.note(principal.keyId);
      return principal;
    });
  }

  const unlisten = await database.listen(
    AUTH_CHANNEL,
    onPayload,
    () => {
      flushAll();
      listening = true;
    },
    () => {
      listening = false;
      flushAll();
    },
  );
  listening = true;

  return {
    authenticate(presentedKey: string): Principal | null | Promise<Principal | null> {
      if (presentedKey.length === 0 || presentedKey.length > MAX_KEY_LENGTH) return null;
      const hash = hashApiKey(presentedKey);
      const entry = known.get(hash);
      if (entry) {
        if (entry.expiresAt > now()) {
          lastUsed.note(entry.principal.keyId);
          return entry.principal;
        }
        forget(hash);
      }
      const unknownUntil = unknown.get(hash);
      if (unknownUntil !== undefined) {
        if (unknownUntil > now()) return null;
        unknown.delete(hash);
      }
      return lookup(hash);
    },
    async close() {
      if (closed) return;
      closed = true;
      flushAll();
      await unlisten();
      await lastUsed.close();
    },
  };
}

/**
 * Batches last_used_at writes off the request path: each key is queued at most once per interval
 * and a timer writes the queue in one statement. Failures keep the queue for the next round.
 */
function createLastUsedWriter(database: Database, intervalMs: number, flushIntervalMs: number, now: () => number) {
  const lastNoted = new Map<string, number>();
  let pending = new Map<string, number>();
  let flushing: Promise<void> | undefined;

  async function write(batch: Map<string, number>): Promise<void> {
    const rows = [...batch].map(([id, at]) => sql`(${id}::text, ${new Date(at).toISOString()}::timestamptz)`);
    await database.db.execute(sql`
      update ${apiKeys} set last_used_at = greatest(${apiKeys.lastUsedAt}, v.used_at)
      from (values ${sql.join(rows, sql`, `)}) as v(id, used_at)
      where ${apiKeys.id} = v.id`);
  }

  async function flush(): Promise<void> {
    if (flushing) return flushing;
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    flushing = write(batch)
      .catch((err: unknown) => {
        for (const [id, at] of batch) if (!pending.has(id)) pending.set(id, at);
        console.error(`last_used_at update for ${batch.size} key(s) failed: ${describeDbError(err)}`);
      })
      .finally(() => {
        flushing = undefined;
        const cutoff = now() - intervalMs;
        for (const [id, at] of lastNoted) if (at <= cutoff) lastNoted.delete(id);
      });
    return flushing;
  }

  const timer = setInterval(() => void flush(), flushIntervalMs);
  timer.unref?.();

  return {
    note(keyId: string): void {
      const t = now();
      const previous = lastNoted.get(keyId);
      if (previous !== undefined && t - previous < intervalMs) return;
      lastNoted.set(keyId, t);
      pending.set(keyId, t);
    },
    flush,
    async close(): Promise<void> {
      clearInterval(timer);
      await flushing;
      await flush();
    },
  };
}
