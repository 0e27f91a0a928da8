import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { rejectionOf } from "../helpers/rejection-of.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

let gw: TestGateway;
const keys: Record<string, string> = {};
beforeAll(async () => {
  gw = await startTestGateway();
  for (const plan of ["Starter", "Pro", "Enterprise"] as const) keys[plan] = (await gw.account(plan)).key;
}, 30_000);
afterAll(() => gw.stop(), 30_000);

const get = async (path: string, headers: Record<string, string>) => {
  const res = await fetch(gw.url + path, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("GET /v1/models", () => {
  test("lists exactly the plan's tiers with every field of the spec", async () => {
    for (const [plan, tiers] of [
      ["Starter", ["fast", "normal"]],
      ["Pro", ["fast", "normal", "smart"]],
      ["Enterprise", ["fast", "normal", "smart", "smart-plus"]],
    ] as const) {
      const { status, body } = await get("/v1/models", { "x-api-key": keys[plan]! });
      expect(status).toBe(200);
      const data = body.data as Array<Record<string, unknown>>;
      expect(data.map((m) => m.id)).toEqual([...tiers]);
      expect(body).toEqual(expect.objectContaining({ object: "list", has_more: false, first_id: tiers[0], last_id: tiers.at(-1) }));
    }
    const { body } = await get("/v1/models", { authorization: `Bearer ${keys.Pro}` });
    const entry = (body.data as Array<Record<string, unknown>>)[1]!;
    expect(entry).toEqual({
      id: "normal",
      object: "model",
      type: "model",
      created: expect.any(Number),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      owned_by: "routelane",
      display_name: "Normal",
      description: expect.any(String),
      context_window: 1048576,
      context_length: 1048576,
      max_input_tokens: 1048576,
      max_output_tokens: 131072,
      max_completion_tokens: 131072,
      capabilities: {
        anthropic_messages: true,
        openai_chat: true,
        openai_responses: true,
        tools: true,
        vision: true,
        json_schema: true,
        reasoning: false,
      },
      client_compat: { pi: { maxTokensField: "max_tokens", supportsReasoningEffort: false } },
    });
    expect(new Date(entry.created_at as string).getTime() / 1000).toBe(entry.created as number);
  });

  test("both SDKs read the list; Claude Code's ?limit=1000 works; limit pages", async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: keys.Pro!, maxRetries: 0 });
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: keys.Pro!, maxRetries: 0 });
    const viaAnthropic: string[] = [];
    for await (const model of anthropic.models.list()) viaAnthropic.push(model.id);
    const viaOpenAI: string[] = [];
    for await (const model of openai.models.list()) viaOpenAI.push(model.id);
    expect(viaAnthropic).toEqual(["fast", "normal", "smart"]);
    expect(viaOpenAI).toEqual(["fast", "normal", "smart"]);
    const limited = await get("/v1/models?limit=1000", { "x-api-key": keys.Pro! });
    expect((limited.body.data as unknown[]).length).toBe(3);
    const first = await get("/v1/models?limit=2", { "x-api-key": keys.Pro! });
    expect(first.body).toEqual(expect.objectContaining({ has_more: true, first_id: "fast", last_id: "normal" }));
    const rest = await get("/v1/models?limit=2&after_id=normal", { "x-api-key": keys.Pro! });
    expect(rest.body).toEqual(expect.objectContaining({ has_more: false, first_id: "smart", last_id: "smart" }));
  });

  test("GET /v1/models/{id}: a tier of the plan; unknown or outside the plan → 404 in the right shape", async () => {
    const ok = await get("/v1/models/smart", { "x-api-key": keys.Pro! });
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe("smart");
    const outside = await get("/v1/models/smart", { "x-api-key": keys.Starter!, "anthropic-version": "2023-06-01" });
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual(expect.objectContaining({ type: "error", error: expect.objectContaining({ type: "not_found_error" }) }));
    const unknown = await get("/v1/models/gpt-9", { authorization: `Bearer ${keys.Pro}` });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual(expect.objectContaining({ type: "not_found_error", code: "model_not_found" }));
  });

  test("errors follow anthropic-version: Messages shape with it, OpenAI shape without", async () => {
    const withVersion = await get("/v1/models", { "anthropic-version": "2026-10-21" });
    expect(withVersion.status).toBe(401);
    expect(withVersion.body).toEqual(expect.objectContaining({ type: "error", error: { type: "authentication_error", message: "invalid or missing API key" } }));
    const without = await get("/v1/models", {});
    expect(without.status).toBe(401);
    expect(without.body).toEqual({ error: expect.objectContaining({ type: "authentication_error", code: "authentication_error", message: "invalid or missing API key" }) });
  });
});

describe("POST /v1/messages/count_tokens", () => {
  test("the SDK gets the upstream's count (not flagged estimated); plan rules apply", async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: keys.Starter!, maxRetries: 0 });
    const small = await anthropic.messages.countTokens({ model: "normal", messages: [{ role: "user", content: "hi" }] });
    const large = await anthropic.messages.countTokens({
      model: "normal",
      system: "You are a careful reviewer.",
      messages: [{ role: "user", content: "Review this code please. ".repeat(50) }],
    });
    expect(small.input_tokens).toBeGreaterThan(0);
    expect(large.input_tokens).toBeGreaterThan(small.input_tokens * 10);
    // The tier's model can count (the simulated upstream implements the count endpoints).
    expect((small as unknown as { estimated?: boolean }).estimated).toBeUndefined();
    const refused = await rejectionOf(anthropic.messages.countTokens({ model: "smart", messages: [{ role: "user", content: "hi" }] }));
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
  });
});
