import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { createAdminGate } from "../../src/ops/create-admin-gate.ts";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

const METRICS_TOKEN = "metrics-token-for-operator-auth";
const UNAUTHORIZED = { error: { message: "invalid or missing admin token", type: "authentication_error", param: null, code: "authentication_error" } };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ env: { ROUTELANE_METRICS_TOKEN: METRICS_TOKEN } });
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(() => gw.stop(), DATABASE_HOOK_TIMEOUT_MS);

const call = (method: string, path: string, authorization?: string, body?: unknown) =>
  fetch(`${gw.url}${path}`, {
    method,
    headers: { ...(authorization === undefined ? {} : { authorization }), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const OPERATOR_ROUTES = [
  ["GET", "/admin/accounts/acct_x"],
  ["POST", "/admin/accounts"],
  ["POST", "/admin/route/explain"],
  ["POST", "/admin/config/reload"],
] as const;

describe("one door for the operator routes", () => {
  test.each(OPERATOR_ROUTES)("%s %s without a token: the one 401 body, with www-authenticate", async (method, path) => {
    const res = await call(method, path);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(await res.json()).toEqual(UNAUTHORIZED);
  });

  test("/metrics refuses in the same shape, naming its own token", async () => {
    const res = await call("GET", "/metrics", "Bearer not-the-metrics-token");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    const body = (await res.json()) as typeof UNAUTHORIZED;
    expect(body.error).toMatchObject({ type: "authentication_error", param: null, code: "authentication_error" });
    expect(body.error.message).toContain("metrics token");
  });

  test("the scheme is read in any case (RFC 9110), on every operator route", async () => {
    const metrics = await call("GET", "/metrics", `bearer ${METRICS_TOKEN}`);
    expect(metrics.status).toBe(200);
    await metrics.text();
    const reload = await call("POST", "/admin/config/reload", `BEARER ${ADMIN_TOKEN}`);
    expect(reload.status).toBe(200);
    expect(((await reload.json()) as { reloaded: boolean }).reloaded).toBe(true);
    const account = await call("GET", "/admin/accounts/acct_x", `bearer ${ADMIN_TOKEN}`);
    expect(account.status).toBe(404);
    await account.text();
  });

  test("the metrics token is not the admin token, nor the other way round", async () => {
    expect((await call("GET", "/metrics", `Bearer ${ADMIN_TOKEN}`)).status).toBe(401);
    expect((await call("POST", "/admin/config/reload", `Bearer ${METRICS_TOKEN}`)).status).toBe(401);
  });
});

describe("wrong admin tokens are limited per client address", () => {
  test("past ten wrong tokens in a minute, every route refuses the address with 429, the right token too", async () => {
    // One wrong admin token was sent above (the metrics token on reload); nine more reach the limit.
    for (let i = 0; i < 9; i++) expect((await call("GET", "/admin/accounts/acct_x", `Bearer wrong-${i}`)).status).toBe(401);
    for (const [method, path] of OPERATOR_ROUTES) {
      const res = await call(method, path, `Bearer ${ADMIN_TOKEN}`);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe("rate_limit_error");
      expect(body.error.message).toStartWith("too many wrong admin tokens from this address");
    }
    // Without server.trustProxy a forwarded address is not believed: naming another gets nowhere.
    const spoofed = await fetch(`${gw.url}/admin/accounts/acct_x`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "x-forwarded-for": "203.0.113.9" } });
    expect(spoofed.status).toBe(429);
  });

  test("the count is per address and ends with its window", async () => {
    let now = 1_000_000;
    const gate = createAdminGate({ token: ADMIN_TOKEN, maxFailures: 3, windowMs: 60_000, now: () => now });
    const request = (token: string) => new Request("http://gw/admin/accounts", { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 3; i++) expect(((await gate.check(request("wrong"), "10.0.0.1")) as Response).status).toBe(401);
    expect(((await gate.check(request(ADMIN_TOKEN), "10.0.0.1")) as Response).status).toBe(429);
    expect(await gate.check(request(ADMIN_TOKEN), "10.0.0.2")).toEqual({ kind: "token" });
    // A request with no token at all is not a wrong token.
    expect(((await gate.check(new Request("http://gw/admin/accounts"), "10.0.0.2")) as Response).status).toBe(401);
    now += 60_000;
    expect(await gate.check(request(ADMIN_TOKEN), "10.0.0.1")).toEqual({ kind: "token" });
  });
});

describe("behind a proxy (server.trustProxy)", () => {
  let behind: TestGateway;
  beforeAll(async () => {
    behind = await startTestGateway({ fileConfig: { ...DEFAULT_CONFIG, server: { ...DEFAULT_CONFIG.server, trustProxy: true } } });
  }, DATABASE_HOOK_TIMEOUT_MS);
  afterAll(() => behind.stop(), DATABASE_HOOK_TIMEOUT_MS);

  // Every caller comes through the proxy: the socket's peer is the same for all of them.
  const viaProxy = (client: string, token: string, init: RequestInit = {}) =>
    fetch(`${behind.url}/admin/accounts`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "x-forwarded-for": `198.51.100.77, ${client}`, "content-type": "application/json" },
    });

  test("wrong tokens lock out the client the proxy names, not every operator behind it", async () => {
    for (let i = 0; i < 10; i++) expect((await viaProxy("203.0.113.66", `wrong-${i}`)).status).toBe(401);
    expect((await viaProxy("203.0.113.66", ADMIN_TOKEN)).status).toBe(429);
    // The entries before the proxy's are the client's own: changing them changes nothing.
    const created = await viaProxy("203.0.113.5", ADMIN_TOKEN, { method: "POST", body: JSON.stringify({ plan: "Starter", email: "behind-proxy@corp.test" }) });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { id: string };
    // The audit log names the client, not the proxy.
    const audit = await fetch(`${behind.url}/admin/audit?account=${account.id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "x-forwarded-for": "203.0.113.5" } });
    const [entry] = ((await audit.json()) as { data: Array<{ action: string; address: string }> }).data;
    expect(entry).toMatchObject({ action: "account.create", address: "203.0.113.5" });
  });
});
