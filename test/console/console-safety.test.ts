import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSessionStore } from "../../src/console/create-session-store.ts";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

let gw: TestGateway;
let bare: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  // No admin token: no operator routes at all.
  bare = await startTestGateway({ env: { ROUTELANE_ADMIN_TOKEN: "" } });
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await gw.stop();
  await bare.stop();
}, DATABASE_HOOK_TIMEOUT_MS);

const form = (token: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/console/sign-in`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams({ token }) });

async function signIn(headers: Record<string, string> = {}): Promise<{ cookie: string; setCookie: string; csrf: string }> {
  const res = await form(ADMIN_TOKEN, headers);
  expect(res.status).toBe(303);
  const setCookie = res.headers.get("set-cookie")!;
  const cookie = setCookie.split(";")[0]!;
  const session = (await (await fetch(`${gw.url}/console/api/session`, { headers: { cookie } })).json()) as { csrf_token: string };
  return { cookie, setCookie, csrf: session.csrf_token };
}

describe("without an admin token", () => {
  test.each(["/console", "/console/sign-in", "/console/api/session", "/console/api/metrics", "/admin/accounts"])("GET %s is 404, as if absent", async (path) => {
    const res = await fetch(`${bare.url}${path}`);
    expect(res.status).toBe(404);
    await res.text();
  });

  test("POST /console/sign-in is 404 too", async () => {
    const res = await fetch(`${bare.url}/console/sign-in`, { method: "POST", body: new URLSearchParams({ token: ADMIN_TOKEN }) });
    expect(res.status).toBe(404);
    await res.text();
  });
});

describe("console sessions", () => {
  test("sign-in sets an HttpOnly, SameSite=Strict cookie with an expiry; Secure behind HTTPS", async () => {
    const plain = await signIn();
    expect(plain.setCookie).toMatch(/^routelane_console=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const https = await signIn({ "x-forwarded-proto": "https" });
    expect(https.setCookie).toEndWith("; Secure");
  });

  test("the session reads the admin API; its writes need the CSRF token and are audited as the session", async () => {
    const { cookie, csrf } = await signIn();
    expect((await fetch(`${gw.url}/admin/accounts`, { headers: { cookie } })).status).toBe(200);
    const body = JSON.stringify({ plan: "Starter" });
    const headers = { cookie, "content-type": "application/json" };
    expect((await fetch(`${gw.url}/admin/accounts`, { method: "POST", headers, body })).status).toBe(403);
    expect((await fetch(`${gw.url}/admin/accounts`, { method: "POST", headers: { ...headers, "x-csrf-token": "wrong" }, body })).status).toBe(403);
    const foreign = await fetch(`${gw.url}/admin/accounts`, { method: "POST", headers: { ...headers, "x-csrf-token": csrf, origin: "https://evil.example" }, body });
    expect(foreign.status).toBe(403);
    const created = await fetch(`${gw.url}/admin/accounts`, { method: "POST", headers: { ...headers, "x-csrf-token": csrf }, body });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const audit = (await (await fetch(`${gw.url}/admin/audit?account=${id}`, { headers: { cookie } })).json()) as { data: Array<{ actor: string }> };
    expect(audit.data[0]!.actor).toMatch(/^console session ses_[0-9A-Za-z]{16}$/);
  });

  test("a form posted from another site is refused", async () => {
    const res = await form(ADMIN_TOKEN, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    await res.text();
  });

  test("sign-out ends the session everywhere", async () => {
    const { cookie, csrf } = await signIn();
    const out = await fetch(`${gw.url}/console/sign-out`, { method: "POST", headers: { cookie, "x-csrf-token": csrf } });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toStartWith("routelane_console=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    expect((await fetch(`${gw.url}/admin/accounts`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${gw.url}/console/api/session`, { headers: { cookie } })).status).toBe(401);
  });

  test("a session does not outlive a change of the admin token", async () => {
    const before = createSessionStore(gw.gateway.database, ADMIN_TOKEN, 60_000);
    const session = await before.create("127.0.0.1");
    expect(await before.find(session.secret)).toMatchObject({ id: session.id });
    const after = createSessionStore(gw.gateway.database, "a-new-admin-token-0123456", 60_000);
    expect(await after.find(session.secret)).toBeNull();
  });

  test("the sign-in page loads nothing but itself: no script, a strict CSP, no framing", async () => {
    const res = await fetch(`${gw.url}/console/sign-in`);
    const html = await res.text();
    expect(html).not.toContain("<script");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  test("wrong tokens are limited per address: past ten in a minute, sign-in answers 429, the right token too", async () => {
    // The tests above sent none; ten wrong ones reach the limit.
    for (let i = 0; i < 10; i++) {
      const res = await form(`wrong-token-${i}`);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain("That is not the admin token.");
    }
    const blocked = await form(ADMIN_TOKEN);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(blocked.headers.get("set-cookie")).toBeNull();
    expect(await blocked.text()).toContain("Too many wrong tokens from this address.");
  });
});
