import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig, ModelConfig } from "../../src/config/schema.ts";
import { createKeyAuthenticator } from "../../src/accounts/create-key-authenticator.ts";
import { handleCountTokens } from "../../src/pipeline/handle-count-tokens.ts";
import type { RequestRecord } from "../../src/canonical/request-record.ts";
import { decodeMessagesRequest } from "../../src/wire/messages/decode-request.ts";
import { conversationKey } from "../../src/routing/conversation-key.ts";
import { createMemoryPinStore } from "../../src/routing/create-memory-pin-store.ts";
import { resolveProviders } from "../../src/upstream/resolve-providers.ts";
import { estimateTokenCount } from "../../src/usage/estimate-token-count.ts";
import { findPinnedModel } from "../../src/usage/find-pinned-model.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";
import { lastUpstreamRequest, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/** Tier `normal` counts on a model speaking Messages, `smart` on a Responses-only one, `fast` on a Chat-only one. */
function countingConfig(): FileConfig {
  const config = structuredClone(DEFAULT_CONFIG) as FileConfig & { models: Record<string, ModelConfig> };
  config.models["sim-smart"] = { ...config.models["sim-smart"]!, apis: ["responses"] };
  config.models["sim-fast"] = { ...config.models["sim-fast"]!, apis: ["chat"] };
  // An upstream nobody listens on.
  config.providers.gone = { kind: "anthropic", baseUrl: "http://127.0.0.1:1" };
  config.models["sim-broken"] = { ...config.models["sim-normal-b"]!, provider: "gone", upstreamId: "gone-model" };
  config.tiers["smart-plus"] = { ...config.tiers["smart-plus"], models: ["sim-broken"] };
  return config;
}

let gw: TestGateway;
let key: string;
let starterKey: string;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: countingConfig() });
  key = (await gw.account("Enterprise")).key;
  starterKey = (await gw.account("Starter")).key;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await gw?.stop();
}, DATABASE_HOOK_TIMEOUT_MS);

const body = (model: string) => ({
  model,
  system: "You are terse.",
  messages: [
    { role: "user", content: "Write a haiku about rate limits and caches, please." },
    { role: "assistant", content: [{ type: "text", text: "Tokens drip slowly" }] },
    { role: "user", content: "Another one." },
  ],
  tools: [{ name: "lookup", description: "Look a word up", input_schema: { type: "object", properties: { word: { type: "string" } } } }],
});

async function count(payload: unknown, apiKey = key) {
  const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(payload),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

/** What the simulated upstream itself answers for a body on one of its count endpoints. */
async function simCount(path: string, upstreamBody: unknown): Promise<number> {
  const res = await fetch(`${gw.gateway.sim!.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(upstreamBody) });
  return ((await res.json()) as { input_tokens: number }).input_tokens;
}

describe("POST /v1/messages/count_tokens", () => {
  test("a Messages upstream counts: its Messages count endpoint, with the tier's default model", async () => {
    const res = await count(body("normal"));
    expect(res.status).toBe(200);
    expect(res.json.estimated).toBeUndefined();
    const upstream = lastUpstreamRequest(gw);
    expect(upstream.path).toBe("/v1/messages/count_tokens");
    expect(upstream.body.model).toBe("sim-normal");
    expect(upstream.headers["anthropic-version"]).toBe("2023-06-01");
    expect(res.json.input_tokens).toBe(await simCount("/v1/messages/count_tokens", upstream.body));
    expect(res.json.input_tokens).toBeGreaterThan(10);
    expect(res.headers.get("x-router-tier")).toBe("normal");
    expect(res.headers.get("x-router-model")).toBe("sim-normal");
  });

  test("a Responses-only upstream counts on its input-token endpoint, the request translated", async () => {
    const res = await count(body("smart"));
    expect(res.status).toBe(200);
    expect(res.json.estimated).toBeUndefined();
    const upstream = lastUpstreamRequest(gw);
    expect(upstream.path).toBe("/v1/responses/input_tokens");
    expect(upstream.body.model).toBe("sim-smart");
    expect(upstream.body.instructions).toBe("You are terse.");
    expect(Array.isArray(upstream.body.input)).toBe(true);
    expect(upstream.body.stream).toBeUndefined();
    expect(res.json.input_tokens).toBe(await simCount("/v1/responses/input_tokens", upstream.body));
    expect(res.json.input_tokens).toBeGreaterThan(10);
  });

  test("an upstream that cannot count (Chat only): the local tokenizer estimate, flagged", async () => {
    const before = gw.gateway.sim!.received.length;
    const payload = body("fast");
    const res = await count(payload);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ input_tokens: await estimateTokenCount(payload), estimated: true });
    expect(gw.gateway.sim!.received.length).toBe(before);
  });

  test("an upstream that cannot be reached: the estimate", async () => {
    const payload = body("smart-plus");
    const res = await count(payload);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ input_tokens: await estimateTokenCount(payload), estimated: true });
    expect(res.headers.get("x-router-model")).toBe("sim-broken");
  });

  test.each([
    ["no key", body("normal"), "", 401, "authentication_error"],
    ["a tier outside the plan", body("smart"), "STARTER", 403, "permission_error"],
    ["no messages", { model: "normal" }, "KEY", 400, "invalid_request_error"],
  ])("%s", async (_name, payload, which, status, type) => {
    const apiKey = which === "KEY" ? key : which === "STARTER" ? starterKey : "";
    const res = await count(payload, apiKey);
    expect(res.status).toBe(status);
    expect(res.json.type).toBe("error");
    expect(res.json.error.type).toBe(type);
  });
});

describe("estimateTokenCount", () => {
  test.each([
    ["a short text: tokenizer count plus per-message framing", { messages: [{ role: "user", content: "Hello, Routelane" }] }, 8],
    ["blocks, a tool call and its result", {
      messages: [
        { role: "user", content: [{ type: "text", text: "Hello, Routelane" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "lookup", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "Hello, Routelane" }] },
      ],
    }, 8 + 3 + 1 + 1 + 8],
    ["an image counts as a flat block", { messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }] }, 1003],
  ])("%s", async (_name, request, expected) => {
    expect(await estimateTokenCount(request as never)).toBe(expected);
  });
});

describe("handleCountTokens with the routing's pins", () => {
  test("a pinned conversation counts on its pinned model; the record carries no usage", async () => {
    const config = gw.gateway.config;
    const authenticator = await createKeyAuthenticator({ database: gw.testDatabase.database, ttlMs: 60_000 });
    const records: RequestRecord[] = [];
    const deps = { config, authenticator, providers: resolveProviders(config, {}, gw.gateway.sim!.url), observe: (r: RequestRecord) => void records.push(r) };
    const { accountId, key: apiKey } = await gw.account("Enterprise");
    const payload = body("normal");
    const pins = createMemoryPinStore(100);
    const key = conversationKey(accountId, "normal", decodeMessagesRequest(payload).value, "session-7");
    await pins.set(key, { model: "sim-normal-b", taskClass: "coding", baseEffort: "medium", escalation: { steps: 0, seen: "" } }, 60_000);
    const request = (session: string) =>
      new Request("http://gateway/v1/messages/count_tokens", {
        method: "POST",
        headers: { "x-api-key": apiKey, "content-type": "application/json", "x-session-id": session },
        body: JSON.stringify(payload),
      });
    const pinned = await handleCountTokens(request("session-7"), deps, { pinnedModel: findPinnedModel(pins) });
    expect(pinned.headers.get("x-router-model")).toBe("sim-normal-b");
    expect(lastUpstreamRequest(gw).body.model).toBe("sim-normal-b");
    const other = await handleCountTokens(request("session-8"), deps, { pinnedModel: findPinnedModel(pins) });
    expect(other.headers.get("x-router-model")).toBe("sim-normal");
    expect(records.map((r) => [r.endpoint, r.status, r.accountId, r.usage])).toEqual([
      ["count_tokens", 200, accountId, undefined],
      ["count_tokens", 200, accountId, undefined],
    ]);
    await authenticator.close();
  });
});
