import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { runAdminCli } from "../../src/cli/admin.ts";
import { smartplusJobs } from "../../src/db/schema/index.ts";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";
import { eventually } from "../helpers/eventually.ts";

let gw: TestGateway;
let alice: { id: string; key: string; keyId: string };
let bob: { id: string; key: string; keyId: string };
let aliceSecond: { id: string; key: string };

async function admin(method: string, path: string, body?: unknown, accept = "application/json") {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined };
}

const ask = (text: string): Anthropic.MessageCreateParamsNonStreaming => ({ model: "normal", max_tokens: 200, messages: [{ role: "user", content: text }] });

beforeAll(async () => {
  gw = await startTestGateway();
  const a = (await admin("POST", "/admin/accounts", { plan: "Pro", email: "Alice@Example.com" })).json;
  alice = { id: a.id, key: a.key, keyId: a.key_id };
  const b = (await admin("POST", "/admin/accounts", { plan: "Starter", email: "bob@corp.test" })).json;
  bob = { id: b.id, key: b.key, keyId: b.key_id };
  aliceSecond = (await admin("POST", `/admin/accounts/${alice.id}/keys`)).json;

  const first = new Anthropic({ baseURL: gw.url, apiKey: alice.key, maxRetries: 0 });
  await first.messages.create(ask("fleet usage: the first question"));
  // The same request again is a response-cache hit.
  const replay = await first.messages.create(ask("fleet usage: the first question")).withResponse();
  expect(replay.response.headers.get("x-router-cache")).toBe("hit");
  const second = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: aliceSecond.key, maxRetries: 0 });
  await second.chat.completions.create({ model: "fast", messages: [{ role: "user", content: "fleet usage from the second key" }] });
  await new Anthropic({ baseURL: gw.url, apiKey: bob.key, maxRetries: 0 }).messages.create(ask("fleet usage from bob"));
  await eventually(
    () => admin("GET", "/admin/usage?group_by=account"),
    (res) => res.json.totals.requests >= 4,
  );
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(() => gw.stop(), DATABASE_HOOK_TIMEOUT_MS);

describe("GET /admin/accounts", () => {
  test("lists accounts, newest first, each with its keys, last use and this month's tokens and cost", async () => {
    const res = await eventually(
      () => admin("GET", "/admin/accounts"),
      (r) => r.json.data.every((a: { last_used_at: string | null }) => a.last_used_at !== null),
    );
    expect(res.status).toBe(200);
    expect(res.json.data.map((a: { id: string }) => a.id)).toEqual([bob.id, alice.id]);
    const [b, a] = res.json.data;
    expect(a.keys).toEqual({ active: 2, total: 2 });
    expect(b.keys).toEqual({ active: 1, total: 1 });
    expect(a.month.requests).toBe(3);
    expect(a.month.tokens).toBeGreaterThan(0);
    expect(a.month.cost_usd).toBeGreaterThan(0);
    expect(b.month.requests).toBe(1);
    expect(a.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(a).toMatchObject({ plan: "Pro", email: "Alice@Example.com", suspended: false, limits: { requests_per_minute: 300 } });
    expect(res.json.next_cursor).toBeNull();
  });

  test("filters by plan, e-mail (any case) and suspension", async () => {
    const ids = async (query: string) => (await admin("GET", `/admin/accounts?${query}`)).json.data.map((a: { id: string }) => a.id);
    expect(await ids("plan=Starter")).toEqual([bob.id]);
    expect(await ids("email=ALICE@example")).toEqual([alice.id]);
    expect(await ids("email=nobody")).toEqual([]);
    expect(await ids("suspended=true")).toEqual([]);
    expect((await admin("POST", `/admin/accounts/${bob.id}/suspend`)).status).toBe(200);
    expect(await ids("suspended=true")).toEqual([bob.id]);
    expect(await ids("suspended=false&plan=Pro")).toEqual([alice.id]);
    expect((await admin("POST", `/admin/accounts/${bob.id}/unsuspend`)).status).toBe(200);
  });

  test("pages with a cursor until next_cursor is null", async () => {
    const first = (await admin("GET", "/admin/accounts?limit=1")).json;
    expect(first.data.map((a: { id: string }) => a.id)).toEqual([bob.id]);
    expect(first.next_cursor).toBeString();
    const second = (await admin("GET", `/admin/accounts?limit=1&cursor=${first.next_cursor}`)).json;
    expect(second.data.map((a: { id: string }) => a.id)).toEqual([alice.id]);
    expect(second.next_cursor).toBeNull();
  });

  test.each([
    ["limit=0", "limit"],
    ["limit=201", "limit"],
    ["plan=Gold", "plan"],
    ["suspended=yes", "suspended"],
    ["cursor=bm90LWEtY3Vyc29y", "cursor"],
  ])("?%s → 400 naming %s", async (query, param) => {
    const res = await admin("GET", `/admin/accounts?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: "invalid_request_error", param });
    expect(res.json.error.message).toStartWith(`${param}: `);
  });
});

describe("GET /admin/usage", () => {
  test("grouped by account: requests, billable tokens, cache hits apart, cost, totals", async () => {
    const res = await admin("GET", "/admin/usage?group_by=account");
    expect(res.status).toBe(200);
    const byAccount = Object.fromEntries(res.json.data.map((row: { account_id: string }) => [row.account_id, row]));
    expect(byAccount[alice.id]).toMatchObject({ requests: 3, cache_hits: 1, errors: 0 });
    expect(byAccount[bob.id]).toMatchObject({ requests: 1, cache_hits: 0 });
    expect(res.json.totals.requests).toBe(4);
    expect(res.json.totals.input_tokens).toBe(byAccount[alice.id].input_tokens + byAccount[bob.id].input_tokens);
    for (const field of ["input_tokens", "output_tokens", "cost_usd"]) expect(byAccount[alice.id][field]).toBeGreaterThan(0);
  });

  test("a cache hit adds no tokens: the replayed answer's tokens are counted once", async () => {
    const byKey = (await admin("GET", `/admin/usage?group_by=key&account=${alice.id}`)).json.data;
    const first = byKey.find((row: { key_id: string }) => row.key_id === alice.keyId);
    expect(first).toMatchObject({ requests: 2, cache_hits: 1 });
    const original = await gw.gateway.database.rows<{ input: number; output: number }>(
      sql`select input_tokens::int as input, output_tokens::int as output from usage_records where key_id = ${alice.keyId} and not cache_hit`,
    );
    expect(original).toHaveLength(1);
    expect(first.input_tokens).toBe(original[0]!.input);
    expect(first.output_tokens).toBe(original[0]!.output);
  });

  test("usage rows carry the key: per-key usage, and one key's report", async () => {
    const byKey = (await admin("GET", "/admin/usage?group_by=key")).json.data.map((row: { key_id: string; requests: number }) => [row.key_id, row.requests]);
    expect(byKey.sort()).toEqual([[alice.keyId, 2], [aliceSecond.id, 1], [bob.keyId, 1]].sort());
    const one = (await admin("GET", `/admin/usage?key=${aliceSecond.id}&group_by=tier,model`)).json;
    expect(one.totals.requests).toBe(1);
    expect(one.data).toHaveLength(1);
    expect(one.data[0].tier).toBe("fast");
    expect(one.data[0].model).toBeString();
    const monthly = (await admin("GET", `/admin/accounts/${alice.id}/usage`)).json;
    expect(monthly.by_key.map((row: { key_id: string; requests: number }) => [row.key_id, row.requests]).sort()).toEqual([[alice.keyId, 2], [aliceSecond.id, 1]].sort());
  });

  test("by day (UTC) and tier, in a range given as dates", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const res = (await admin("GET", `/admin/usage?from=${today}&to=${today}&group_by=day,tier`)).json;
    expect(res.from).toBe(`${today}T00:00:00.000Z`);
    expect(res.data.map((row: { day: string; tier: string; requests: number }) => [row.day, row.tier, row.requests])).toEqual([
      [today, "fast", 1],
      [today, "normal", 3],
    ]);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await admin("GET", `/admin/usage?from=${yesterday}&to=${yesterday}`)).json.totals.requests).toBe(0);
  });

  test("CSV with Accept: text/csv", async () => {
    const res = await admin("GET", "/admin/usage?group_by=tier", undefined, "text/csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = res.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("tier,requests,input_tokens,output_tokens,cache_read_input_tokens,cache_creation_input_tokens,reasoning_tokens,cache_hits,errors,cost_usd");
    expect(lines.slice(1).map((line) => line.split(",").slice(0, 2))).toEqual([["fast", "1"], ["normal", "3"]]);
  });

  test.each([
    ["group_by=week", "group_by"],
    ["group_by=day,day", "group_by"],
    ["from=2026-02-30", "from"],
    ["from=yesterday", "from"],
    ["from=2026-05-02&to=2026-05-01", "to"],
  ])("?%s → 400 naming %s", async (query, param) => {
    const res = await admin("GET", `/admin/usage?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe(param);
  });

  test("an unknown key → 404", async () => {
    expect((await admin("GET", "/admin/usage?key=key_nobody")).status).toBe(404);
  });
});

describe("GET /admin/audit", () => {
  test("every admin write is there, newest first, with actor, address and before/after", async () => {
    const res = await admin("GET", "/admin/audit");
    expect(res.status).toBe(200);
    const actions = res.json.data.map((e: { action: string; account_id: string }) => [e.action, e.account_id]);
    expect(actions).toEqual([
      ["account.unsuspend", bob.id],
      ["account.suspend", bob.id],
      ["key.issue", alice.id],
      ["account.create", bob.id],
      ["account.create", alice.id],
    ]);
    const suspend = res.json.data[1];
    expect(suspend).toMatchObject({ actor: "token", before: { suspended: false }, after: { suspended: true } });
    expect(suspend.address).toBeString();
    expect(suspend.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const created = res.json.data[4];
    expect(created.after).toMatchObject({ id: alice.id, plan: "Pro", key: { id: alice.keyId } });
    // Never the key or its hash.
    expect(JSON.stringify(res.json)).not.toContain(alice.key);
    expect(JSON.stringify(res.json)).not.toContain(new Bun.CryptoHasher("sha256").update(alice.key).digest("hex"));
  });

  test("a revocation and an update are recorded; a repeated revocation is not a change", async () => {
    await admin("POST", `/admin/keys/${aliceSecond.id}/revoke`);
    await admin("POST", `/admin/keys/${aliceSecond.id}/revoke`);
    await admin("PATCH", `/admin/accounts/${alice.id}`, { default_tier: "smart" });
    const page = (await admin("GET", `/admin/audit?account=${alice.id}&limit=2`)).json;
    expect(page.data.map((e: { action: string }) => e.action)).toEqual(["account.update", "key.revoke"]);
    expect(page.data[0]).toMatchObject({ before: { default_tier: "normal" }, after: { default_tier: "smart" } });
    expect(page.data[1]).toMatchObject({ key_id: aliceSecond.id, before: { revoked_at: null } });
    expect(page.data[1].after.revoked_at).toBeString();
    const rest = (await admin("GET", `/admin/audit?account=${alice.id}&cursor=${page.next_cursor}`)).json;
    expect(rest.data.map((e: { action: string }) => e.action)).toEqual(["key.issue", "account.create"]);
    expect(rest.next_cursor).toBeNull();
    expect((await admin("GET", "/admin/audit?action=key.revoke")).json.data).toHaveLength(1);
  });
});

describe("the audit log of config reloads", () => {
  test("a reload is recorded with the tiers and models before and after", async () => {
    expect((await admin("POST", "/admin/config/reload")).status).toBe(200);
    const [entry] = (await admin("GET", "/admin/audit?action=config.reload")).json.data;
    expect(entry).toMatchObject({ actor: "token", account_id: null });
    expect(entry.before.tiers).toEqual(["fast", "normal", "smart", "smart-plus"]);
    expect(entry.after.models).toEqual(entry.before.models);
  });
});

describe("bun run admin: accounts list, report, audit", () => {
  async function cli(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(args, { ROUTELANE_ADMIN_TOKEN: ADMIN_TOKEN, ROUTELANE_URL: gw.url }, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  test("accounts list: one line per account, filtered", async () => {
    const res = await cli(["accounts", "list", "--plan", "Starter"]);
    expect(res.err).toBe("");
    const lines = res.out.split("\n");
    expect(lines[0]!.split(/\s{2,}/)).toEqual(["ID", "PLAN", "SUSPENDED", "EMAIL", "KEYS", "LAST USED", "TOKENS", "COST USD"]);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.split(/\s+/).slice(0, 5)).toEqual([bob.id, "Starter", "no", "bob@corp.test", "1/1"]);
  });

  test("report by tier, as a table with a total and as CSV", async () => {
    const table = await cli(["report", "--group-by", "tier"]);
    expect(table.code).toBe(0);
    const rows = table.out.split("\n").map((line) => line.split(/\s+/));
    expect(rows.find((r) => r[0] === "fast")?.[1]).toBe("1");
    expect(rows.find((r) => r[0] === "normal")?.slice(1, 2)).toEqual(["3"]);
    expect(rows.find((r) => r[0] === "total")?.[1]).toBe("4");
    const csv = await cli(["report", "--group-by", "tier", "--csv"]);
    expect(csv.out.split("\r\n")[0]).toStartWith("tier,requests,");
    const bad = await cli(["report", "--group-by", "week"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("group_by: must be one or more of");
  });

  test("audit of one account", async () => {
    const res = await cli(["audit", "--account", bob.id]);
    expect(res.code).toBe(0);
    const actions = res.out.split("\n").map((line) => line.split(/\s+/)[1]);
    expect(actions).toEqual(["account.unsuspend", "account.suspend", "account.create"]);
    expect(res.out).toContain("by token from");
  });
});

describe("GET /admin/smartplus/jobs", () => {
  test("jobs newest first, filtered by state; one job by id; never its token", async () => {
    const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, s));
    const job = (id: string, state: "queued" | "ready", s: number) => ({ id, accountId: alice.id, state, task: `task ${id}`, model: "sim-max", effort: "high", createdAt: at(s), expiresAt: at(s + 3600), fileCount: 3, uploadBytes: 2048 });
    await gw.gateway.database.db.insert(smartplusJobs).values([job("job_older", "ready", 1), job("job_newer", "queued", 2)]);
    const all = await admin("GET", "/admin/smartplus/jobs");
    expect(all.status).toBe(200);
    expect(all.json.data.map((j: { id: string }) => j.id)).toEqual(["job_newer", "job_older"]);
    expect(all.json.data[1]).toMatchObject({ account_id: alice.id, state: "ready", file_count: 3, upload_bytes: 2048, created_at: at(1).toISOString() });
    expect((await admin("GET", "/admin/smartplus/jobs?state=ready")).json.data.map((j: { id: string }) => j.id)).toEqual(["job_older"]);
    const first = await admin("GET", "/admin/smartplus/jobs?limit=1");
    const rest = await admin("GET", `/admin/smartplus/jobs?limit=1&cursor=${first.json.next_cursor}`);
    expect(rest.json.data.map((j: { id: string }) => j.id)).toEqual(["job_older"]);
    expect((await admin("GET", "/admin/smartplus/jobs/job_newer")).json).toMatchObject({ id: "job_newer", task: "task job_newer", state: "queued" });
    expect((await admin("GET", "/admin/smartplus/jobs/job_nobody")).status).toBe(404);
    expect((await admin("GET", "/admin/smartplus/jobs?state=lost")).json.error.param).toBe("state");
  });
});
