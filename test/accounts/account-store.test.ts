import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { createAccountStore, type AccountStore } from "../../src/accounts/account-store.ts";
import { AUTH_CHANNEL, decodeAuthEvent, type AuthEvent } from "../../src/accounts/auth-events.ts";
import { hashApiKey } from "../../src/accounts/generate-api-key.ts";
import { GatewayError } from "../../src/canonical/gateway-error.ts";
import { apiKeys } from "../../src/db/schema/index.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

let t: TestDatabase;
let store: AccountStore;
const events: (AuthEvent | null)[] = [];

beforeAll(async () => {
  t = await openTestDatabase();
  store = createAccountStore(t.database);
  await t.database.listen(AUTH_CHANNEL, (p) => events.push(decodeAuthEvent(p)), () => {});
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await t.close();
}, DATABASE_HOOK_TIMEOUT_MS);

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error("expected a GatewayError");
}

describe("account store", () => {
  test("createAccount stores the account and only the key's hash", async () => {
    const { account, key } = await store.createAccount({ plan: "Pro", email: "a@example.com" });
    expect(account.id).toMatch(/^acct_[0-9A-Za-z]{16}$/);
    expect(account).toMatchObject({ plan: "Pro", defaultTier: "normal", email: "a@example.com", suspended: false });
    expect(account.limits).toEqual({ requestsPerMinute: 300, concurrentRequests: 16, tokensPerMonth: null });
    expect(key.key).toMatch(/^rl_[0-9A-Za-z]{43}$/);
    expect(key.id).toMatch(/^key_/);

    const rows = await t.database.rows<Record<string, unknown>>(sql`select * from api_keys where account_id = ${account.id}`);
    expect(rows.length).toBe(1);
    const row = rows[0]!;
    expect(row.key_hash).toBe(hashApiKey(key.key));
    expect(row.prefix).toBe(key.key.slice(0, 8));
    for (const value of Object.values(row)) expect(String(value)).not.toContain(key.key.slice(8));
    expect(events.at(-1)).toEqual({ kind: "key-created", accountId: account.id });
  });

  test("a default tier outside the plan is refused, naming default_tier", async () => {
    const err = await rejection(store.createAccount({ plan: "Starter", defaultTier: "smart" }));
    expect(err.status).toBe(400);
    expect(err.param).toBe("default_tier");
    expect(err.message).toBe("default_tier: tier smart is not included in plan Starter; available: fast, normal");
  });

  test("issue, list and revoke keys; revoke is idempotent", async () => {
    const { account, key: first } = await store.createAccount({ plan: "Starter", defaultTier: "fast" });
    const second = await store.issueKey(account.id);
    expect(second?.key).toMatch(/^rl_/);
    expect(second?.key).not.toBe(first.key);
    const listed = await store.listKeys(account.id);
    expect(listed?.map((k) => k.id).sort()).toEqual([first.id, second!.id].sort());
    expect(listed?.every((k) => k.revokedAt === null && k.lastUsedAt === null)).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(first.key);

    const revoked = await store.revokeKey(first.id);
    expect(revoked?.id).toBe(first.id);
    expect(revoked?.accountId).toBe(account.id);
    expect(events.at(-1)).toEqual({ kind: "key-revoked", accountId: account.id, keyId: first.id });
    const again = await store.revokeKey(first.id);
    expect(again?.revokedAt.getTime()).toBe(revoked!.revokedAt.getTime());

    expect(await store.issueKey("acct_missing")).toBeNull();
    expect(await store.listKeys("acct_missing")).toBeNull();
    expect(await store.revokeKey("key_missing")).toBeNull();
  });

  test("suspend and unsuspend announce the account", async () => {
    const { account } = await store.createAccount({ plan: "Pro" });
    expect((await store.setSuspended(account.id, true))?.suspended).toBe(true);
    expect(events.at(-1)).toEqual({ kind: "account", accountId: account.id });
    expect((await store.getAccount(account.id))?.suspended).toBe(true);
    expect((await store.setSuspended(account.id, false))?.suspended).toBe(false);
    expect(await store.setSuspended("acct_missing", true)).toBeNull();
  });

  test("limits only on Enterprise; null means no cap; leaving Enterprise clears them", async () => {
    const { account } = await store.createAccount({ plan: "Pro" });
    const err = await rejection(store.updateAccount(account.id, { limits: { requestsPerMinute: 5 } }));
    expect(err.param).toBe("limits");
    expect(err.message).toContain("only for Enterprise");

    const upgraded = await store.updateAccount(account.id, {
      plan: "Enterprise",
      defaultTier: "smart-plus",
      limits: { requestsPerMinute: 1200, tokensPerMonth: 5_000_000_000 },
    });
    expect(upgraded).toMatchObject({ plan: "Enterprise", defaultTier: "smart-plus" });
    expect(upgraded?.limits).toEqual({ requestsPerMinute: 1200, concurrentRequests: null, tokensPerMonth: 5_000_000_000 });

    const partly = await store.updateAccount(account.id, { limits: { requestsPerMinute: null, concurrentRequests: 8 } });
    expect(partly?.limits).toEqual({ requestsPerMinute: null, concurrentRequests: 8, tokensPerMonth: 5_000_000_000 });

    const tierErr = await rejection(store.updateAccount(account.id, { plan: "Pro" }));
    expect(tierErr.param).toBe("default_tier");
    const down = await store.updateAccount(account.id, { plan: "Pro", defaultTier: "smart" });
    expect(down?.limits).toEqual({ requestsPerMinute: 300, concurrentRequests: 16, tokensPerMonth: null });
    const back = await store.updateAccount(account.id, { plan: "Enterprise" });
    expect(back?.limits).toEqual({ requestsPerMinute: null, concurrentRequests: null, tokensPerMonth: null });
    expect(back!.updatedAt.getTime()).toBeGreaterThanOrEqual(back!.createdAt.getTime());
    expect(await store.updateAccount("acct_missing", { plan: "Pro" })).toBeNull();
  });

  test("importKeyHash registers an older key without ever seeing it", async () => {
    const { account } = await store.createAccount({ plan: "Pro" });
    const info = await store.importKeyHash(account.id, hashApiKey("sk-legacy-abc"), "sk-legac");
    expect(info?.prefix).toBe("sk-legac");
    const [row] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, info!.id));
    expect(row?.keyHash).toBe(hashApiKey("sk-legacy-abc"));
    const err = await rejection(store.importKeyHash(account.id, "not-hex", "x"));
    expect(err.param).toBe("key_hash");
  });

  test("countAccounts counts", async () => {
    const before = await store.countAccounts();
    await store.createAccount({ plan: "Starter" });
    expect(await store.countAccounts()).toBe(before + 1);
  });
});
