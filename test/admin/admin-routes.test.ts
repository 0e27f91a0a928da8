import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createAccountStore } from "../../src/accounts/account-store.ts";
import { createKeyAuthenticator } from "../../src/accounts/create-key-authenticator.ts";
import type { KeyAuthenticator } from "../../src/accounts/principal.ts";
import { adminRoutes } from "../../src/http/routes/admin.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const TOKEN = "admin-test-token-7f3a";

let t: TestDatabase;
let server: { stop(): Promise<void> | void };
let noTokenServer: { stop(): Promise<void> | void };
let base: string;
let noTokenBase: string;
let auth: KeyAuthenticator;

beforeAll(async () => {
  t = await openTestDatabase();
  const accounts = createAccountStore(t.database);
  const app = new Elysia().use(adminRoutes({ database: t.database, adminToken: TOKEN, accounts })).listen(0);
  server = { stop: async () => void (await app.stop()) };
  base = `http://127.0.0.1:${app.server!.port}`;
  const bare = new Elysia().use(adminRoutes({ database: t.database, adminToken: undefined, accounts })).listen(0);
  noTokenServer = { stop: async () => void (await bare.stop()) };
  noTokenBase = `http://127.0.0.1:${bare.server!.port}`;
  auth = await createKeyAuthenticator({ database: t.database, ttlMs: 60_000 });
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await server.stop();
  await noTokenServer.stop();
  await auth.close();
  await t.close();
}, DATABASE_HOOK_TIMEOUT_MS);

async function call(method: string, path: string, body?: unknown, token: string | null = TOKEN, at = base) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${at}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

const isoNow = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("admin API: token", () => {
  test("no token configured: every /admin path is 404, as if absent", async () => {
    for (const [method, path] of [["POST", "/admin/accounts"], ["GET", "/admin/accounts/acct_x"], ["GET", "/admin"], ["GET", "/admin/whatever"]] as const) {
      const res = await call(method, path, method === "POST" ? { plan: "Pro" } : undefined, TOKEN, noTokenBase);
      expect(res.status).toBe(404);
    }
  });

  test("missing or wrong token: 401 in the error shape, on known and unknown paths", async () => {
    for (const token of [null, "wrong", `${TOKEN}x`, TOKEN.slice(0, -1), ""]) {
      const res = await call("POST", "/admin/accounts", { plan: "Pro" }, token);
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: { message: "invalid or missing admin token", type: "authentication_error", param: null, code: "authentication_error" } });
    }
    expect((await call("GET", "/admin/nothing-here", undefined, "wrong")).status).toBe(401);
    const basic = await fetch(`${base}/admin/accounts/acct_x`, { headers: { authorization: `Basic ${TOKEN}` } });
    expect(basic.status).toBe(401);
  });

  test("right token on an unknown admin path: 404 in the error shape", async () => {
    const res = await call("GET", "/admin/nothing-here");
    expect(res.status).toBe(404);
    expect(res.json.error.type).toBe("not_found_error");
  });
});

describe("admin API: accounts and keys", () => {
  test("full lifecycle through every endpoint", async () => {
    const created = await call("POST", "/admin/accounts", { plan: "Pro", email: "ops@example.com" });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ plan: "Pro", default_tier: "normal" });
    expect(created.json.id).toMatch(/^acct_[0-9A-Za-z]{16}$/);
    expect(created.json.key).toMatch(/^rl_[0-9A-Za-z]{43}$/);
    const id: string = created.json.id;
    const firstKey: string = created.json.key;
    expect((await auth.authenticate(firstKey))?.accountId).toBe(id);

    const shown = await call("GET", `/admin/accounts/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({
      id,
      plan: "Pro",
      default_tier: "normal",
      email: "ops@example.com",
      suspended: false,
      limits: { requests_per_minute: 300, concurrent_requests: 16, tokens_per_month: null },
    });
    expect(shown.json.created_at).toMatch(isoNow);

    const issued = await call("POST", `/admin/accounts/${id}/keys`);
    expect(issued.status).toBe(201);
    expect(issued.json.id).toMatch(/^key_/);
    expect(issued.json.key).toMatch(/^rl_/);
    expect(issued.json.key).not.toBe(firstKey);

    const listed = await call("GET", `/admin/accounts/${id}/keys`);
    expect(listed.status).toBe(200);
    expect(listed.json.data.length).toBe(2);
    for (const key of listed.json.data) {
      // Never the key or its hash: its id, prefix, times, controls and this month's use.
      expect(Object.keys(key).sort()).toEqual([
        "allowed_tiers", "created_at", "expires_at", "id", "last_used_at", "month", "monthly_spend_usd", "name", "prefix", "requests_per_minute", "revoked_at",
      ]);
      expect(key.prefix).toMatch(/^rl_[0-9A-Za-z]{5}$/);
      expect(key.revoked_at).toBeNull();
    }
    expect(listed.json.data.map((k: { prefix: string }) => k.prefix).sort()).toEqual([firstKey.slice(0, 8), issued.json.key.slice(0, 8)].sort());
    const raw = JSON.stringify(listed.json);
    expect(raw).not.toContain(firstKey);
    expect(raw).not.toContain(issued.json.key);
    expect(raw).not.toMatch(/[0-9a-f]{64}/);

    const firstKeyId = listed.json.data.find((k: { prefix: string }) => k.prefix === firstKey.slice(0, 8)).id;
    const revoked = await call("POST", `/admin/keys/${firstKeyId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.json.id).toBe(firstKeyId);
    expect(revoked.json.revoked_at).toMatch(isoNow);
    expect(await auth.authenticate(firstKey)).toBeNull();
    expect((await auth.authenticate(issued.json.key))?.accountId).toBe(id);
    const relisted = await call("GET", `/admin/accounts/${id}/keys`);
    expect(relisted.json.data.find((k: { id: string }) => k.id === firstKeyId).revoked_at).toBe(revoked.json.revoked_at);

    const suspended = await call("POST", `/admin/accounts/${id}/suspend`);
    expect(suspended.status).toBe(200);
    expect(suspended.json).toMatchObject({ id, suspended: true });
    expect((await auth.authenticate(issued.json.key))?.suspended).toBe(true);
    const unsuspended = await call("POST", `/admin/accounts/${id}/unsuspend`);
    expect(unsuspended.json).toMatchObject({ id, suspended: false });
    expect((await auth.authenticate(issued.json.key))?.suspended).toBe(false);

    const patched = await call("PATCH", `/admin/accounts/${id}`, {
      plan: "Enterprise",
      default_tier: "smart-plus",
      limits: { requests_per_minute: 900, concurrent_requests: null, tokens_per_month: 3_000_000_000 },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      id,
      plan: "Enterprise",
      default_tier: "smart-plus",
      limits: { requests_per_minute: 900, concurrent_requests: null, tokens_per_month: 3_000_000_000 },
    });
    expect(await auth.authenticate(issued.json.key)).toMatchObject({ plan: "Enterprise", defaultTier: "smart-plus" });
    expect((await call("GET", `/admin/accounts/${id}`)).json.limits.requests_per_minute).toBe(900);
  });

  test("create with a default tier and a null e-mail", async () => {
    const res = await call("POST", "/admin/accounts", { plan: "Enterprise", default_tier: "smart", email: null });
    expect(res.status).toBe(201);
    expect(res.json.default_tier).toBe("smart");
    expect((await call("GET", `/admin/accounts/${res.json.id}`)).json.email).toBeNull();
  });

  test("unknown account or key id → 404", async () => {
    for (const [method, path] of [
      ["GET", "/admin/accounts/acct_nope"],
      ["POST", "/admin/accounts/acct_nope/keys"],
      ["GET", "/admin/accounts/acct_nope/keys"],
      ["POST", "/admin/accounts/acct_nope/suspend"],
      ["POST", "/admin/accounts/acct_nope/unsuspend"],
      ["POST", "/admin/keys/key_nope/revoke"],
    ] as const) {
      const res = await call(method, path);
      expect(res.status).toBe(404);
      expect(res.json.error.type).toBe("not_found_error");
      expect(res.json.error.message).toContain(path.includes("key_nope") ? "key key_nope" : "account acct_nope");
    }
    const patched = await call("PATCH", "/admin/accounts/acct_nope", { plan: "Pro" });
    expect(patched.status).toBe(404);
  });
});

describe("admin API: validation errors name the field", () => {
  const cases: [string, string, unknown, string][] = [
    ["POST", "/admin/accounts", { plan: "Gold" }, "plan: must be one of Starter, Pro, Enterprise"],
    ["POST", "/admin/accounts", {}, "plan: is required"],
    ["POST", "/admin/accounts", { plan: "Pro", default_tier: "turbo" }, "default_tier: must be one of fast, normal, smart, smart-plus"],
    ["POST", "/admin/accounts", { plan: "Starter", default_tier: "smart" }, "default_tier: tier smart is not included in plan Starter; available: fast, normal"],
    ["POST", "/admin/accounts", { plan: "Pro", email: "not-an-address" }, "email: must be an e-mail address or null"],
    ["POST", "/admin/accounts", { plan: "Pro", colour: "red" }, "colour: unknown field"],
    ["POST", "/admin/accounts", "{not json", "body: not valid JSON"],
    ["POST", "/admin/accounts", [1, 2], "body: must be a JSON object"],
    ["PATCH", "/admin/accounts/ACCOUNT", { limits: { requests_per_minute: 10 } }, "limits: per-account limits are only for Enterprise accounts (plan is Pro)"],
    ["PATCH", "/admin/accounts/ACCOUNT", { plan: "Starter" }, "default_tier: tier smart is not included in plan Starter; available: fast, normal"],
    ["PATCH", "/admin/accounts/ACCOUNT", { limits: { requests_per_minute: -1 } }, "limits.requests_per_minute: must be a positive integer or null (no cap)"],
    ["PATCH", "/admin/accounts/ACCOUNT", { limits: { tokens_per_month: "lots" } }, "limits.tokens_per_month: must be a positive integer or null (no cap)"],
    ["PATCH", "/admin/accounts/ACCOUNT", { limits: { burst: 3 } }, "limits.burst: unknown field"],
    ["PATCH", "/admin/accounts/ACCOUNT", { limits: 5 }, "limits: must be an object with requests_per_minute, concurrent_requests and/or tokens_per_month"],
  ];

  let accountId: string;
  beforeAll(async () => {
    accountId = (await call("POST", "/admin/accounts", { plan: "Pro", default_tier: "smart" })).json.id;
  });

  test.each(cases)("%s %s %j → 400", async (method, path, body, message) => {
    const res = await call(method, path.replace("ACCOUNT", accountId), body);
    expect(res.status).toBe(400);
    // `param` names the field the message starts with; a body that is no object has none.
    const param = message.startsWith("body:") ? null : message.slice(0, message.indexOf(":"));
    expect(res.json).toEqual({ error: { message, type: "invalid_request_error", param, code: "invalid_request_error" } });
  });

  test("a rejected change leaves the account as it was", async () => {
    const res = await call("GET", `/admin/accounts/${accountId}`);
    expect(res.json).toMatchObject({ plan: "Pro", default_tier: "smart", limits: { requests_per_minute: 300 } });
  });
});
