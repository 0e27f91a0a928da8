import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createAccountStore } from "../../src/accounts/account-store.ts";
import { runAdminCli } from "../../src/cli/admin.ts";
import { adminRoutes } from "../../src/http/routes/admin.ts";
import { monthWindow } from "../../src/limits/month-window.ts";
import { createUsageStore } from "../../src/usage/create-usage-store.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const TOKEN = "usage-test-token-5d1e";

let t: TestDatabase;
let base: string;
let server: { stop(): Promise<void> | void };
let accountId: string;

beforeAll(async () => {
  t = await openTestDatabase();
  const accounts = createAccountStore(t.database);
  accountId = (await accounts.createAccount({ plan: "Pro" })).account.id;
  const row = (i: number, tier: string, model: string, createdAt: Date, extra: Record<string, unknown> = {}) => ({
    requestId: `req_u_${i}`,
    accountId,
    createdAt,
    endpoint: "messages",
    tier,
    model,
    status: 200,
    latencyMs: 5,
    inputTokens: 100,
    outputTokens: 10,
    cacheReadTokens: 40,
    costUsd: 0.5,
    ...extra,
  });
  const now = new Date();
  await createUsageStore(t.database).insert([
    row(1, "normal", "sim-normal", new Date(Date.UTC(2025, 10, 3))),
    row(2, "normal", "sim-normal-b", new Date(Date.UTC(2025, 10, 4))),
    row(3, "smart", "sim-smart", new Date(Date.UTC(2025, 10, 5)), { cacheHit: true, costUsd: 0 }),
    row(4, "fast", "sim-fast", new Date(Date.UTC(2025, 9, 5))),
    row(5, "fast", "sim-fast", now),
  ]);
  const app = new Elysia().use(adminRoutes({ database: t.database, adminToken: TOKEN, accounts })).listen(0);
  server = { stop: async () => void (await app.stop()) };
  base = `http://127.0.0.1:${app.server!.port}`;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await server.stop();
  await t.close();
}, DATABASE_HOOK_TIMEOUT_MS);

const get = async (path: string, token = TOKEN) => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, json: (await res.json()) as any };
};

describe("GET /admin/accounts/{id}/usage", () => {
  test("totals by tier and model for the month asked", async () => {
    const { status, json } = await get(`/admin/accounts/${accountId}/usage?month=2025-11`);
    expect(status).toBe(200);
    expect(json.account_id).toBe(accountId);
    expect(json.month).toBe("2025-11");
    // The cache hit (row 3) is counted in cache_hits, not in the billable tokens.
    expect(json.totals).toEqual({
      requests: 3,
      input_tokens: 200,
      output_tokens: 20,
      cache_read_input_tokens: 80,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 0,
      cache_hits: 1,
      errors: 0,
      cost_usd: 1,
    });
    expect(json.by_tier.map((r: any) => [r.tier, r.requests])).toEqual([
      ["normal", 2],
      ["smart", 1],
    ]);
    expect(json.by_model.map((r: any) => [r.model, r.requests])).toEqual([
      ["sim-normal", 1],
      ["sim-normal-b", 1],
      ["sim-smart", 1],
    ]);
  });

  test("without ?month: the current UTC month", async () => {
    const { json } = await get(`/admin/accounts/${accountId}/usage`);
    expect(json.month).toBe(monthWindow(Date.now()).key);
    expect(json.by_model.map((r: any) => r.model)).toContain("sim-fast");
  });

  test.each([
    ["a bad month", `/admin/accounts/ACCOUNT/usage?month=2026-13`, 400, "month: must be a month as YYYY-MM"],
    ["an unknown account", `/admin/accounts/acct_nobody/usage?month=2025-11`, 404, "account acct_nobody not found"],
  ])("%s", async (_name, path, status, message) => {
    const res = await get(path.replace("ACCOUNT", accountId));
    expect(res.status).toBe(status);
    expect(res.json.error.message).toBe(message);
  });

  test("the admin token is required", async () => {
    expect((await get(`/admin/accounts/${accountId}/usage`, "wrong-token-0000")).status).toBe(401);
  });
});

describe("bun run admin usage", () => {
  async function cli(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(args, { ROUTELANE_ADMIN_TOKEN: TOKEN, ROUTELANE_URL: base }, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  test("text: a table by tier with a total, and one by model", async () => {
    const res = await cli(["usage", accountId, "--month", "2025-11"]);
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    expect(res.out).toContain(`account ${accountId}, month 2025-11 (UTC)`);
    const lines = res.out.split("\n");
    expect(lines.find((l) => l.startsWith("normal"))?.split(/\s+/)).toEqual(["normal", "2", "200", "80", "0", "20", "0", "0", "$1.000000"]);
    expect(lines.find((l) => l.startsWith("total"))?.split(/\s+/)).toEqual(["total", "3", "200", "80", "0", "20", "0", "1", "$1.000000"]);
    expect(lines.some((l) => l.startsWith("sim-normal-b"))).toBe(true);
  });

  test("--json prints the API's answer", async () => {
    const res = await cli(["usage", accountId, "--month", "2025-10", "--json"]);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.out).totals.requests).toBe(1);
  });

  test.each([
    [["usage"], 2, "missing account ID"],
    [["usage", "acct_x", "--month", "2026-1"], 2, '--month: expected YYYY-MM, got "2026-1"'],
    [["usage", "acct_nobody"], 1, "account acct_nobody not found"],
  ])("%p fails with a one-line error", async (args, code, message) => {
    const res = await cli(args);
    expect(res.code).toBe(code);
    expect(res.err).toContain(message);
  });
});
