import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createAccountStore, type AccountStore } from "../../src/accounts/account-store.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { adminRoutes } from "../../src/http/routes/admin.ts";
import { createMemoryPinStore } from "../../src/routing/create-memory-pin-store.ts";
import { createRouting, type Routing } from "../../src/routing/create-routing.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const TOKEN = "explain-test-token-91ab";
let t: TestDatabase;
let routing: Routing;
let accounts: AccountStore;
let app: { stop(): Promise<void> };
let base: string;

beforeAll(async () => {
  t = await openTestDatabase();
  accounts = createAccountStore(t.database);
  routing = createRouting({ config: loadConfig({}), database: t.database, pins: createMemoryPinStore(100) });
  const server = new Elysia().use(adminRoutes({ database: t.database, adminToken: TOKEN, accounts, routing: () => routing })).listen(0);
  app = { stop: async () => void (await server.stop()) };
  base = `http://127.0.0.1:${server.server!.port}`;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await app.stop();
  await routing.close();
  await t.close();
}, DATABASE_HOOK_TIMEOUT_MS);

async function explain(body: unknown, token = TOKEN) {
  const response = await fetch(`${base}/admin/route/explain`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

const messagesBody = (text: string, model = "smart") => ({ model, max_tokens: 1024, messages: [{ role: "user", content: text }] });

describe("POST /admin/route/explain", () => {
  test("explains a Messages request: class, rule, model, effort, source, candidates", async () => {
    const { status, json } = await explain({ body: messagesBody("Traceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'x'") });
    expect(status).toBe(200);
    expect(json).toMatchObject({ tier: "smart", task_class: "debugging", rule: "stack-trace", model: "sim-smart", effort: "high", source: "rule" });
    expect(json.candidates.map((c: { model: string }) => c.model)).toEqual(["sim-smart", "sim-smart-b"]);
    expect(json.signals).toMatchObject({ depth: 1, tools: 0, images: false, last_is_tool_result: false });
  });

  test.each([
    ["chat", { model: "normal", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "What is a monad?" }] }, "question"],
    ["responses", { model: "normal", input: "Help me plan the architecture of our billing system." }, "planning"],
  ])("reads %s bodies", async (format, body, taskClass) => {
    const { status, json } = await explain({ format, body });
    expect(status).toBe(200);
    expect(json.task_class).toBe(taskClass);
  });

  test("is a dry run: nothing is cached, no upstream is needed", async () => {
    const task = `Add a dark mode toggle to the settings page. ${"It should follow the system theme. ".repeat(10)}`;
    await explain({ body: messagesBody(task, "normal") });
    const again = await explain({ body: messagesBody(task, "normal") });
    expect(again.json).toMatchObject({ source: "default", cached: false });
    expect(routing.decisionCache.size).toBe(0);
  });

  test("with an account: its default tier and plan apply", async () => {
    const { account } = await accounts.createAccount({ plan: "Starter", defaultTier: "fast", email: null });
    const auto = await explain({ account: account.id, body: messagesBody("Summarize this thread in one sentence.", "auto") });
    expect(auto.json).toMatchObject({ tier: "fast", model: "sim-fast", task_class: "chore", effort: "off" });
    const refused = await explain({ account: account.id, body: messagesBody("hi", "smart-plus") });
    expect(refused.status).toBe(403);
    expect((await explain({ account: "acct_missing", body: messagesBody("hi") })).status).toBe(404);
  });

  test.each([
    ["wrong token", { body: messagesBody("hi") }, "not-the-token-at-all", 401],
    ["no body", { format: "messages" }, TOKEN, 400],
    ["unknown format", { format: "grpc", body: {} }, TOKEN, 400],
    ["unknown tier", { body: messagesBody("hi", "gpt-9") }, TOKEN, 404],
    ["undecodable body", { body: { model: "normal", messages: "nope" } }, TOKEN, 400],
  ])("%s → %i", async (_name, body, token, status) => {
    expect((await explain(body, token)).status).toBe(status);
  });

  test("not JSON → 400", async () => {
    expect((await explain("{oops")).status).toBe(400);
  });
});
