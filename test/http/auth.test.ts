import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { hashApiKey } from "../../src/accounts/generate-api-key.ts";
import { rejectionOf } from "../helpers/rejection-of.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
}, 30_000);
afterAll(() => gw.stop(), 30_000);

const bodies = {
  "/v1/messages": { model: "normal", max_tokens: 64, messages: [{ role: "user", content: "hi" }] },
  "/v1/chat/completions": { model: "normal", messages: [{ role: "user", content: "hi" }] },
  "/v1/responses": { model: "normal", input: "hi" },
} as const;
type Path = keyof typeof bodies;

async function call(path: Path, headers: Record<string, string>, body: object = bodies[path]) {
  const res = await fetch(gw.url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** The error body in the shape the spec gives for each format. */
function errorOf(path: Path, body: Record<string, unknown>): { type: unknown; message: unknown } {
  if (path === "/v1/messages") {
    expect(body.type).toBe("error");
    return body.error as { type: unknown; message: unknown };
  }
  const error = body.error as { type: unknown; message: unknown; code: unknown };
  expect(error.code).toBe(error.type);
  return error;
}

describe("authentication on every chat endpoint, in the called format's shape", () => {
  for (const path of Object.keys(bodies) as Path[]) {
    test(`${path}: missing, unknown and revoked keys → 401`, async () => {
      const { key, keyId } = await gw.account("Pro");
      await gw.store.revokeKey(keyId);
      const attempts: Array<Record<string, string>> = [{}, { "x-api-key": "rl_unknown" }, { authorization: "Bearer rl_unknown" }, { "x-api-key": key }];
      for (const headers of attempts) {
        const res = await call(path, headers);
        expect(res.status).toBe(401);
        expect(errorOf(path, res.body)).toEqual(expect.objectContaining({ type: "authentication_error", message: "invalid or missing API key" }));
        expect(JSON.stringify(res.body)).not.toContain(key);
      }
    });

    test(`${path}: suspended account → 403 client is suspended`, async () => {
      const { key, accountId } = await gw.account("Pro");
      await gw.store.setSuspended(accountId, true);
      const res = await call(path, { authorization: `Bearer ${key}` });
      expect(res.status).toBe(403);
      expect(errorOf(path, res.body)).toEqual(expect.objectContaining({ type: "permission_error", message: "client is suspended" }));
      await gw.store.setSuspended(accountId, false);
      expect((await call(path, { authorization: `Bearer ${key}` })).status).toBe(200);
    });

    test(`${path}: a tier outside the plan → 403 naming tier, plan and the available tiers`, async () => {
      const { key } = await gw.account("Starter");
      const res = await call(path, { "x-api-key": key }, { ...bodies[path], model: "smart" });
      expect(res.status).toBe(403);
      expect(errorOf(path, res.body)).toEqual(
        expect.objectContaining({
          type: "permission_error",
          message: "the `smart` tier is not included in plan `Starter`; available: `fast, normal`",
        }),
      );
    });
  }
});

describe("keys", () => {
  test("both headers work and revocation takes effect on the very next request", async () => {
    const { key, keyId } = await gw.account("Pro");
    expect((await call("/v1/messages", { "x-api-key": key })).status).toBe(200);
    expect((await call("/v1/chat/completions", { authorization: `Bearer ${key}` })).status).toBe(200);
    await gw.store.revokeKey(keyId);
    expect((await call("/v1/messages", { "x-api-key": key })).status).toBe(401);
  });

  test("rotation without downtime: both keys work until the old one is revoked", async () => {
    const { key: oldKey, keyId: oldKeyId, accountId } = await gw.account("Pro");
    const issued = await gw.store.issueKey(accountId);
    if (!issued) throw new Error("account not found");
    expect((await call("/v1/chat/completions", { authorization: `Bearer ${oldKey}` })).status).toBe(200);
    expect((await call("/v1/chat/completions", { authorization: `Bearer ${issued.key}` })).status).toBe(200);
    await gw.store.revokeKey(oldKeyId);
    expect((await call("/v1/chat/completions", { authorization: `Bearer ${oldKey}` })).status).toBe(401);
    expect((await call("/v1/chat/completions", { authorization: `Bearer ${issued.key}` })).status).toBe(200);
  });

  test("a key with an older prefix works: only its hash matters", async () => {
    const { accountId } = await gw.account("Pro");
    const legacy = "sk-legacy-0123456789abcdefghijklmnopqrstuvwxyz";
    await gw.store.importKeyHash(accountId, hashApiKey(legacy), legacy.slice(0, 8));
    expect((await call("/v1/responses", { authorization: `Bearer ${legacy}` })).status).toBe(200);
  });

  test("an unknown model name → 404 model not found", async () => {
    const { key } = await gw.account("Pro");
    const res = await call("/v1/chat/completions", { authorization: `Bearer ${key}` }, { ...bodies["/v1/chat/completions"], model: "gpt-4o" });
    expect(res.status).toBe(404);
    expect((res.body.error as { code: string }).code).toBe("model_not_found");
  });

  test("the SDKs surface the 401 as their authentication error", async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: "rl_nope", maxRetries: 0 });
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "rl_nope", maxRetries: 0 });
    const fromAnthropic = await rejectionOf(anthropic.messages.create({ model: "normal", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }));
    expect(fromAnthropic).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((fromAnthropic as InstanceType<typeof Anthropic.AuthenticationError>).type).toBe("authentication_error");
    const fromOpenAI = await rejectionOf(openai.responses.create({ model: "normal", input: "hi" }));
    expect(fromOpenAI).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((fromOpenAI as InstanceType<typeof OpenAI.AuthenticationError>).message).toContain("invalid or missing API key");
  });
});
