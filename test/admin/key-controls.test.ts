import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runAdminCli } from "../../src/cli/admin.ts";
import { eventually } from "../helpers/eventually.ts";
import { rejectionOf } from "../helpers/rejection-of.ts";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

async function admin(gw: TestGateway, method: string, path: string, body?: unknown) {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const ask = (model: string, text = "hello"): Anthropic.MessageCreateParamsNonStreaming => ({ model, max_tokens: 100, messages: [{ role: "user", content: text }] });
const anthropic = (gw: TestGateway, key: string) => new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });

// Limits are counted in process, or in Redis shared by every instance when REDIS_URL is set.
const BACKENDS = process.env.REDIS_URL ? (["memory", "redis"] as const) : (["memory"] as const);

describe.each(BACKENDS)("per-key controls (%s limits)", (backend) => {
  let gw: TestGateway;
  let accountId: string;
  beforeAll(async () => {
    gw = await startTestGateway({ redis: backend === "redis" });
    accountId = (await admin(gw, "POST", "/admin/accounts", { plan: "Pro" })).json.id;
  }, DATABASE_HOOK_TIMEOUT_MS);
  afterAll(() => gw.stop(), DATABASE_HOOK_TIMEOUT_MS);

  test("a key issued with allowed tiers calls those only: 403 in the caller's shape naming them; /v1/models lists them", async () => {
    const issued = await admin(gw, "POST", `/admin/accounts/${accountId}/keys`, { name: "ci", allowed_tiers: ["fast", "normal"] });
    expect(issued.status).toBe(201);
    expect(issued.json).toMatchObject({ name: "ci", allowed_tiers: ["fast", "normal"], requests_per_minute: null, monthly_spend_usd: null, expires_at: null });
    const key: string = issued.json.key;
    expect((await anthropic(gw, key).messages.create(ask("fast"))).model).toBe("fast");
    const refused = await rejectionOf(anthropic(gw, key).messages.create(ask("smart")));
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect((refused as InstanceType<typeof Anthropic.PermissionDeniedError>).error).toMatchObject({
      type: "error",
      error: { type: "permission_error", message: "the `smart` tier is not allowed for this key; allowed: `fast, normal`" },
    });
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const chat = await rejectionOf(openai.chat.completions.create({ model: "smart", messages: [{ role: "user", content: "hi" }] }));
    expect(chat).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((chat as InstanceType<typeof OpenAI.PermissionDeniedError>).message).toContain("the `smart` tier is not allowed for this key");
    expect((await openai.models.list()).data.map((m) => m.id)).toEqual(["fast", "normal"]);
  });

  test("allowed tiers must be tiers of the plan; other bad controls are 400 naming the field", async () => {
    const cases: Array<[unknown, string]> = [
      [{ allowed_tiers: ["smart-plus"] }, "allowed_tiers"],
      [{ allowed_tiers: [] }, "allowed_tiers"],
      [{ allowed_tiers: ["turbo"] }, "allowed_tiers"],
      [{ requests_per_minute: 0 }, "requests_per_minute"],
      [{ monthly_spend_usd: -1 }, "monthly_spend_usd"],
      [{ expires_at: "tomorrow" }, "expires_at"],
      [{ expires_at: "2020-01-01T00:00:00Z" }, "expires_at"],
      [{ colour: "red" }, "colour"],
    ];
    for (const [body, param] of cases) {
      const res = await admin(gw, "POST", `/admin/accounts/${accountId}/keys`, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.json.error.param).toBe(param);
      expect(res.json.error.message).toStartWith(`${param}: `);
    }
    expect((await admin(gw, "POST", `/admin/accounts/${accountId}/keys`, { allowed_tiers: ["smart-plus"] })).json.error.message).toBe(
      "allowed_tiers: tier smart-plus is not included in plan Pro; available: fast, normal, smart",
    );
  });

  test("a change to a key applies to its next request, and is in the audit log", async () => {
    const issued = (await admin(gw, "POST", `/admin/accounts/${accountId}/keys`)).json;
    const client = anthropic(gw, issued.key);
    expect((await client.messages.create(ask("smart"))).model).toBe("smart");
    const changed = await admin(gw, "PATCH", `/admin/keys/${issued.id}`, { allowed_tiers: ["fast"], name: "narrowed" });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ id: issued.id, name: "narrowed", allowed_tiers: ["fast"] });
    expect(await rejectionOf(client.messages.create(ask("smart")))).toBeInstanceOf(Anthropic.PermissionDeniedError);
    await admin(gw, "PATCH", `/admin/keys/${issued.id}`, { allowed_tiers: null });
    expect((await client.messages.create(ask("smart"))).model).toBe("smart");
    const audit = (await admin(gw, "GET", `/admin/audit?action=key.update&account=${accountId}`)).json.data;
    expect(audit[1]).toMatchObject({ key_id: issued.id, before: { allowed_tiers: null, name: null }, after: { allowed_tiers: ["fast"], name: "narrowed" } });
    expect((await admin(gw, "PATCH", "/admin/keys/key_nobody", { name: "x" })).status).toBe(404);
  });

  test("a key's requests per minute: past them 429 for that key, other keys of the account unaffected", async () => {
    const limited = (await admin(gw, "POST", `/admin/accounts/${accountId}/keys`, { requests_per_minute: 2 })).json;
    const other = (await admin(gw, "POST", `/admin/accounts/${accountId}/keys`)).json;
    for (let i = 0; i < 2; i++) {
      const ok = await anthropic(gw, limited.key).messages.create(ask("fast", `rpm ${i}`)).withResponse();
      expect(ok.response.headers.get("x-ratelimit-limit-requests")).toBe("2");
    }
    const refused = await rejectionOf(anthropic(gw, limited.key).messages.create(ask("fast", "rpm 3")));
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    const error = refused as InstanceType<typeof Anthropic.RateLimitError>;
    expect(error.error).toMatchObject({ error: { type: "rate_limit_error", message: "rate limit of 2 requests per minute for this key exceeded" } });
    expect(Number(error.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await anthropic(gw, other.key).messages.create(ask("fast", "other key"))).model).toBe("fast");
  });

  test("an expired key is refused with 401 like a revoked one", async () => {
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const issued = (await admin(gw, "POST", `/admin/accounts/${accountId}/keys`, { expires_at: expiresAt })).json;
    expect(issued.expires_at).toBe(expiresAt);
    expect((await anthropic(gw, issued.key).messages.create(ask("fast"))).model).toBe("fast");
    // The key's cached entry ends at its expiry, so nothing but the time passing is needed.
    await Bun.sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 50);
    const refused = await rejectionOf(anthropic(gw, issued.key).messages.create(ask("fast")));
    expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((refused as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ error: { type: "authentication_error", message: "invalid or missing API key" } });
  });

  test("a monthly spend cap: once the key has spent it, 429 with the reset time, until the month ends", async () => {
    const issued = (await admin(gw, "POST", `/admin/accounts/${accountId}/keys`, { monthly_spend_usd: 0.000001 })).json;
    const client = anthropic(gw, issued.key);
    expect((await client.messages.create(ask("normal", "spend the budget"))).model).toBe("normal");
    // The first answer's cost (well over a micro-dollar) is counted when it has been sent.
    const refused = await eventually(
      () => rejectionOf(client.messages.create(ask("normal", `spend more ${crypto.randomUUID()}`))).catch(() => undefined),
      (error) => error instanceof Anthropic.RateLimitError,
      40,
    );
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    const error = refused as InstanceType<typeof Anthropic.RateLimitError>;
    const now = new Date();
    const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(error.error).toMatchObject({
      error: { type: "rate_limit_error", message: `monthly spend cap of $0.000001 for this key reached; it resets at ${reset}` },
    });
    expect(error.headers.get("x-should-retry")).toBe("false");
    const spent = await eventually(
      async () => (await admin(gw, "GET", `/admin/keys/${issued.id}`)).json.month.cost_usd as number,
      (cost) => cost > 0.000001,
    );
    expect(spent).toBeGreaterThan(0.000001);
  });

  test("a cap set after the spending counts what the key spent already this month", async () => {
    const issued = (await admin(gw, "POST", `/admin/accounts/${accountId}/keys`)).json;
    const client = anthropic(gw, issued.key);
    await client.messages.create(ask("normal", "spent before the cap"));
    const spent = await eventually(
      async () => (await admin(gw, "GET", `/admin/keys/${issued.id}`)).json.month.cost_usd as number,
      (cost) => cost > 0,
    );
    expect(spent).toBeGreaterThan(0);
    await admin(gw, "PATCH", `/admin/keys/${issued.id}`, { monthly_spend_usd: spent / 2 });
    const refused = await rejectionOf(client.messages.create(ask("normal", "after the cap")));
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect((refused as Error).message).toContain("monthly spend cap of");
  });

  test("bun run admin keys create / update / list with controls", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const cli = (args: string[]) => runAdminCli(args, { ROUTELANE_ADMIN_TOKEN: ADMIN_TOKEN, ROUTELANE_URL: gw.url }, { out: (l) => out.push(l), err: (l) => err.push(l) });
    expect(await cli(["keys", "create", accountId, "--name", "deploy", "--tiers", "fast,normal", "--key-rpm", "30", "--monthly-spend", "12.5", "--expires", "2099-01-01T00:00:00Z", "--json"])).toBe(0);
    const created = JSON.parse(out.pop()!);
    expect(created).toMatchObject({ name: "deploy", allowed_tiers: ["fast", "normal"], requests_per_minute: 30, monthly_spend_usd: 12.5, expires_at: "2099-01-01T00:00:00.000Z" });
    expect(await cli(["keys", "update", created.id, "--key-rpm", "none", "--tiers", "all"])).toBe(0);
    expect(await cli(["keys", "list", accountId])).toBe(0);
    const line = out.pop()!.split("\n").find((l) => l.startsWith(created.id))!;
    expect(line).toContain("deploy");
    expect(line).toContain("$12.5/month until 2099-01-01T00:00:00.000Z");
    expect(line).not.toContain("/min");
    expect(await cli(["keys", "update", created.id, "--monthly-spend", "lots"])).toBe(2);
    expect(err.pop()).toContain('--monthly-spend: expected a positive number of USD or "none", got "lots"');
  });
});
