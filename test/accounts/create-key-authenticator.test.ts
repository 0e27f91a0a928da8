import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { createAccountStore, type AccountStore } from "../../src/accounts/account-store.ts";
import { AUTH_CHANNEL } from "../../src/accounts/auth-events.ts";
import { createKeyAuthenticator, type KeyAuthenticatorOptions } from "../../src/accounts/create-key-authenticator.ts";
import { hashApiKey } from "../../src/accounts/generate-api-key.ts";
import type { KeyAuthenticator } from "../../src/accounts/principal.ts";
import { openDatabase, type Database } from "../../src/db/client.ts";
import { apiKeys } from "../../src/db/schema/index.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const onPostgres = Boolean(process.env.DATABASE_URL);

let t: TestDatabase;
let store: AccountStore;
const open: KeyAuthenticator[] = [];

beforeAll(async () => {
  t = await openTestDatabase();
  store = createAccountStore(t.database);
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await Promise.all(open.map((a) => a.close()));
  await t.close();
}, DATABASE_HOOK_TIMEOUT_MS);

/** The database with every Drizzle entry point counted: a warm authenticate must not touch any. */
function countingDatabase(database: Database): { database: Database; queries: () => number } {
  let n = 0;
  const counted = new Set(["select", "selectDistinct", "execute", "insert", "update", "delete", "transaction", "query", "with"]);
  const db = new Proxy(database.db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop === "string" && counted.has(prop) && typeof value === "function") {
        return (...args: unknown[]) => {
          n++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value;
    },
  });
  return { database: { ...database, db }, queries: () => n };
}

async function authenticator(options: Partial<KeyAuthenticatorOptions> = {}, database = t.database) {
  const a = await createKeyAuthenticator({ database, ttlMs: 60_000, ...options });
  open.push(a);
  return a;
}

describe("key authenticator", () => {
  test("valid key → principal with plan, tier and effective limits; the warm path is synchronous and queries nothing", async () => {
    const { account, key } = await store.createAccount({ plan: "Starter" });
    const spy = countingDatabase(t.database);
    const auth = await authenticator({}, spy.database);

    const cold = auth.authenticate(key.key);
    expect(cold).toBeInstanceOf(Promise);
    expect(await cold).toEqual({
      accountId: account.id,
      keyId: key.id,
      plan: "Starter",
      defaultTier: "normal",
      suspended: false,
      limits: { requestsPerMinute: 60, concurrentRequests: 4, tokensPerMonth: 20_000_000 },
      // A key without controls of its own: nothing more to check per request.
      keyLimits: null,
    });
    const afterCold = spy.queries();
    expect(afterCold).toBe(1);

    for (let i = 0; i < 100; i++) {
      const warm = auth.authenticate(key.key);
      expect(warm).not.toBeInstanceOf(Promise);
      expect((warm as { keyId: string }).keyId).toBe(key.id);
    }
    expect(spy.queries()).toBe(afterCold);
  });

  test("unknown keys → null, remembered briefly so a repeat costs no query", async () => {
    const spy = countingDatabase(t.database);
    const auth = await authenticator({}, spy.database);
    expect(await auth.authenticate("rl_doesnotexist")).toBeNull();
    expect(spy.queries()).toBe(1);
    expect(auth.authenticate("rl_doesnotexist")).toBeNull();
    expect(spy.queries()).toBe(1);
    expect(auth.authenticate("")).toBeNull();
    expect(auth.authenticate("x".repeat(10_000))).toBeNull();
    expect(spy.queries()).toBe(1);
  });

  test("the unknown-key memory ends after unknownTtlMs", async () => {
    let clock = 1_000_000;
    const spy = countingDatabase(t.database);
    const auth = await authenticator({ now: () => clock, unknownTtlMs: 2_000 }, spy.database);
    expect(await auth.authenticate("rl_garbage")).toBeNull();
    clock += 1_999;
    expect(auth.authenticate("rl_garbage")).toBeNull();
    expect(spy.queries()).toBe(1);
    clock += 2;
    expect(await auth.authenticate("rl_garbage")).toBeNull();
    expect(spy.queries()).toBe(2);
  });

  test("cached keys are looked up again after ttlMs", async () => {
    let clock = 5_000_000;
    const { key } = await store.createAccount({ plan: "Pro" });
    const spy = countingDatabase(t.database);
    const auth = await authenticator({ now: () => clock, ttlMs: 10_000 }, spy.database);
    await auth.authenticate(key.key);
    clock += 9_999;
    auth.authenticate(key.key);
    expect(spy.queries()).toBe(1);
    clock += 2;
    const again = auth.authenticate(key.key);
    expect(again).toBeInstanceOf(Promise);
    expect((await again)?.keyId).toBe(key.id);
    expect(spy.queries()).toBe(2);
  });

  test("revocation takes effect on the very next authenticate", async () => {
    const { key } = await store.createAccount({ plan: "Pro" });
    const auth = await authenticator();
    expect((await auth.authenticate(key.key))?.keyId).toBe(key.id);
    expect(auth.authenticate(key.key)).not.toBeInstanceOf(Promise);
    await store.revokeKey(key.id);
    expect(await auth.authenticate(key.key)).toBeNull();
  });

  test("suspension, unsuspension and plan changes show on the next authenticate", async () => {
    const { account, key } = await store.createAccount({ plan: "Pro" });
    const auth = await authenticator();
    expect((await auth.authenticate(key.key))?.suspended).toBe(false);
    await store.setSuspended(account.id, true);
    expect((await auth.authenticate(key.key))?.suspended).toBe(true);
    await store.setSuspended(account.id, false);
    expect((await auth.authenticate(key.key))?.suspended).toBe(false);
    await store.updateAccount(account.id, { plan: "Enterprise", defaultTier: "smart", limits: { concurrentRequests: 3 } });
    expect(await auth.authenticate(key.key)).toMatchObject({
      plan: "Enterprise",
      defaultTier: "smart",
      limits: { requestsPerMinute: null, concurrentRequests: 3, tokensPerMonth: null },
    });
  });

  test("a key with an older prefix works: only the hash is compared", async () => {
    const { account } = await store.createAccount({ plan: "Pro" });
    const legacy = "sk-router-Zx81kq0PmmA2";
    const auth = await authenticator();
    // Asked for before it exists: remembered as unknown until the import announces a new key.
    expect(await auth.authenticate(legacy)).toBeNull();
    const info = await store.importKeyHash(account.id, hashApiKey(legacy), legacy.slice(0, 8));
    expect((await auth.authenticate(legacy))?.keyId).toBe(info!.id);
    // And a raw insert with a foreign prefix, bypassing the store, works for a fresh instance.
    await t.database.db.insert(apiKeys).values({ id: "key_legacy2", accountId: account.id, keyHash: hashApiKey("old_x"), prefix: "old_x" });
    const fresh = await authenticator();
    expect((await fresh.authenticate("old_x"))?.accountId).toBe(account.id);
  });

  test("last_used_at is written off the request path, at most once per interval", async () => {
    const { key } = await store.createAccount({ plan: "Pro" });
    const t0 = Date.parse("2030-01-01T00:00:00.000Z");
    let clock = t0;
    const auth = await createKeyAuthenticator({ database: t.database, ttlMs: 600_000, now: () => clock, flushIntervalMs: 3_600_000 });
    await auth.authenticate(key.key);
    clock += 30_000;
    auth.authenticate(key.key); // within the interval: not queued again
    const before = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(before[0]?.lastUsedAt).toBeNull();
    await auth.close(); // flushes the queue
    const [row] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row?.lastUsedAt?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
  });

  test("an undecodable notification flushes the whole cache", async () => {
    const { key } = await store.createAccount({ plan: "Pro" });
    const auth = await authenticator();
    await auth.authenticate(key.key);
    expect(auth.authenticate(key.key)).not.toBeInstanceOf(Promise);
    await t.database.notify(AUTH_CHANNEL, "garbage");
    expect(auth.authenticate(key.key)).toBeInstanceOf(Promise);
  });
});

describe("cross-instance invalidation", () => {
  test.skipIf(!onPostgres)(
    "revoke and suspend through one instance are refused on the other's next call (Postgres LISTEN/NOTIFY)",
    async () => {
      // Created before the second instance exists, so no late "key-created" notice can race its lookups.
      const { account, key } = await store.createAccount({ plan: "Pro" });
      const other = await store.issueKey(account.id);
      const second = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: "memory://" });
      const authB = await createKeyAuthenticator({ database: second, ttlMs: 60_000 });
      try {
        const authA = await authenticator();
        for (const auth of [authA, authB]) {
          expect((await auth.authenticate(key.key))?.keyId).toBe(key.id);
          expect((await auth.authenticate(other!.key))?.keyId).toBe(other!.id);
          expect(auth.authenticate(key.key)).not.toBeInstanceOf(Promise);
        }

        // Handlers on one handle run in subscription order, so once this one fires, authB has invalidated.
        const arrived = (match: string) => {
          const { promise, resolve } = Promise.withResolvers<void>();
          void second.listen(AUTH_CHANNEL, (p) => p.includes(match) && resolve(), () => {});
          return promise;
        };
        const revokedSeen = arrived(`"keyId":"${key.id}"`);
        await store.revokeKey(key.id);
        await revokedSeen;
        expect(await authB.authenticate(key.key)).toBeNull();
        expect(await authA.authenticate(key.key)).toBeNull();
        expect(authB.authenticate(other!.key)).not.toBeInstanceOf(Promise);

        const suspendedSeen = arrived(`"kind":"account","accountId":"${account.id}"`);
        await store.setSuspended(account.id, true);
        await suspendedSeen;
        expect((await authB.authenticate(other!.key))?.suspended).toBe(true);
      } finally {
        await authB.close();
        await second.close();
      }
    },
  );

  test.skipIf(!onPostgres)("a dropped LISTEN connection flushes the cache; entries are cached again once re-listening", async () => {
    const { key } = await store.createAccount({ plan: "Pro" });
    const handle = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: "memory://" });
    const auth = await createKeyAuthenticator({ database: handle, ttlMs: 60_000 });
    try {
      await auth.authenticate(key.key);
      expect(auth.authenticate(key.key)).not.toBeInstanceOf(Promise);
      // Subscribed after the authenticator, so these fire after its own drop/reconnect handling.
      const dropped = Promise.withResolvers<void>();
      const back = Promise.withResolvers<void>();
      await handle.listen(AUTH_CHANNEL, () => {}, () => back.resolve(), () => dropped.resolve());
      const name = new URL(t.databaseUrl!).pathname.slice(1);
      const killed = await t.database.rows<{ ok: boolean }>(
        sql`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = ${name} and query like 'listen %routelane_auth%'`,
      );
      // Other open instances of this file are cut too; they re-listen just the same.
      expect(killed.length).toBeGreaterThanOrEqual(1);
      await dropped.promise;
      // While not listening nothing is served from memory or cached.
      expect(auth.authenticate(key.key)).toBeInstanceOf(Promise);
      await back.promise;
      expect((await auth.authenticate(key.key))?.keyId).toBe(key.id);
      expect(auth.authenticate(key.key)).not.toBeInstanceOf(Promise);
    } finally {
      await auth.close();
      await handle.close();
    }
  });

  test.skipIf(onPostgres)("cross-instance invalidation needs Postgres: skipped on PGlite (one process, in-process invalidation; set DATABASE_URL to run)", () => {});
});

describe("a database restart", () => {
  test.skipIf(!onPostgres)("a key lookup right after every pooled connection was dropped still answers", async () => {
    const { key } = await store.createAccount({ plan: "Pro" });
    const handle = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: "memory://" });
    const auth = await createKeyAuthenticator({ database: handle, ttlMs: 60_000 });
    try {
      // Fill the pool: every one of these holds its own connection until all have begun.
      await Promise.all(Array.from({ length: 10 }, () => handle.rows(sql`select pg_sleep(0.05)`)));
      const name = new URL(t.databaseUrl!).pathname.slice(1);
      const killed = await t.database.rows<{ ok: boolean }>(
        sql`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid() and query like '%pg_sleep%'`,
      );
      expect(killed.length).toBeGreaterThanOrEqual(3);
      // At once, as the next request after a restart would: the driver has not seen the closes yet.
      const principal = await auth.authenticate(key.key);
      expect(principal?.keyId).toBe(key.id);
    } finally {
      await auth.close();
      // postgres.js's end() waits out its whole 5 s timeout once a query has met a dropped connection.
      await handle.close();
    }
  }, 20_000);
});
