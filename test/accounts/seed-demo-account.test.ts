import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountStore } from "../../src/accounts/account-store.ts";
import { createKeyAuthenticator } from "../../src/accounts/create-key-authenticator.ts";
import { seedDemoAccount } from "../../src/accounts/seed-demo-account.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

let t: TestDatabase;
let dir: string;
beforeAll(async () => {
  t = await openTestDatabase();
  dir = await mkdtemp(join(tmpdir(), "routelane-seed-"));
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
}, DATABASE_HOOK_TIMEOUT_MS);

describe("seedDemoAccount", () => {
  test("creates an Enterprise demo account once, its key in a 0600 file", async () => {
    const dataDir = join(dir, "nested", "data");
    const seeded = await seedDemoAccount({ database: t.database, dataDir });
    expect(seeded).not.toBeNull();
    expect(seeded!.key).toMatch(/^rl_[0-9A-Za-z]{43}$/);

    const path = join(dataDir, "demo-key.txt");
    expect(await readFile(path, "utf8")).toBe(`${seeded!.key}\n`);
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const account = await createAccountStore(t.database).getAccount(seeded!.accountId);
    expect(account).toMatchObject({ plan: "Enterprise", defaultTier: "normal", email: "demo@localhost", suspended: false });

    const auth = await createKeyAuthenticator({ database: t.database, ttlMs: 1_000 });
    expect((await auth.authenticate(seeded!.key))?.accountId).toBe(seeded!.accountId);
    await auth.close();

    expect(await seedDemoAccount({ database: t.database, dataDir })).toBeNull();
    expect(await createAccountStore(t.database).countAccounts()).toBe(1);
  });
});
