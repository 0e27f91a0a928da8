import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { join } from "node:path";
import { createAccountStore, type AccountStore } from "../../src/accounts/account-store.ts";
import { adminRoutes } from "../../src/http/routes/admin.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const TOKEN = "cli-test-token-19c2";
const CLI = join(import.meta.dir, "..", "..", "src", "cli", "admin.ts");

let t: TestDatabase;
let store: AccountStore;
let server: { stop(): Promise<void> | void };
let url: string;

beforeAll(async () => {
  t = await openTestDatabase();
  store = createAccountStore(t.database);
  const app = new Elysia().use(adminRoutes({ database: t.database, adminToken: TOKEN, accounts: store })).listen(0);
  server = { stop: async () => void (await app.stop()) };
  url = `http://127.0.0.1:${app.server!.port}`;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await server.stop();
  await t.close();
}, DATABASE_HOOK_TIMEOUT_MS);

async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  const proc = Bun.spawn(["bun", "run", CLI, ...args], {
    env: { ...process.env, ROUTELANE_URL: url, ROUTELANE_ADMIN_TOKEN: TOKEN, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

describe("bun run admin", () => {
  test("accounts create --json prints the API answer with the key", async () => {
    const res = await cli(["accounts", "create", "--plan", "Pro", "--default-tier", "smart", "--email", "cli@example.com", "--json"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const json = JSON.parse(res.stdout);
    expect(json.id).toMatch(/^acct_[0-9A-Za-z]{16}$/);
    expect(json.key).toMatch(/^rl_[0-9A-Za-z]{43}$/);
    expect(json).toMatchObject({ plan: "Pro", default_tier: "smart" });
    expect(await store.getAccount(json.id)).toMatchObject({ plan: "Pro", defaultTier: "smart", email: "cli@example.com" });
  });

  test("text output, update with limits, keys list and revoke", async () => {
    const created = JSON.parse((await cli(["accounts", "create", "--plan", "Enterprise", "--json"])).stdout);
    const updated = await cli(["accounts", "update", created.id, "--rpm", "120", "--concurrency", "none", "--monthly-tokens", "5000000"]);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain("120 requests/min, no cap concurrent, 5000000 tokens/month");
    expect((await store.getAccount(created.id))?.limits).toEqual({ requestsPerMinute: 120, concurrentRequests: null, tokensPerMonth: 5_000_000 });

    const listed = await cli(["keys", "list", created.id]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(created.key.slice(0, 8));
    expect(listed.stdout).not.toContain(created.key);

    const revoked = await cli(["keys", "revoke", created.key_id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^key ${created.key_id} revoked at \\d{4}-`));

    const suspended = await cli(["accounts", "suspend", created.id]);
    expect(suspended.stdout.trim()).toBe(`account ${created.id} suspended`);
  });

  test("an API error exits non-zero with its message on one line", async () => {
    const res = await cli(["accounts", "show", "acct_nope", "--json"]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toBe("error: account acct_nope not found\n");

    const invalid = await cli(["accounts", "create", "--plan", "Gold"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe("error: plan: must be one of Starter, Pro, Enterprise\n");
  });

  test("an unreachable gateway and a wrong token are one clear line each", async () => {
    const down = await cli(["accounts", "show", "acct_x"], { ROUTELANE_URL: "http://127.0.0.1:9" });
    expect(down.code).toBe(1);
    expect(down.stderr).toBe("error: cannot reach http://127.0.0.1:9\n");

    const denied = await cli(["keys", "list", "acct_x"], { ROUTELANE_ADMIN_TOKEN: "nope" });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toBe("error: invalid or missing admin token\n");

    const usage = await cli(["accounts", "update", "acct_x", "--rpm", "lots"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('error: --rpm: expected a positive integer or "none", got "lots"\n');
  });
});
