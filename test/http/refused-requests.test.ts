import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import OpenAI from "openai";
import type { RequestRecord } from "../../src/canonical/request-record.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * What the real APIs refuse is refused the same way, before any limit is counted or a model is
 * called; Messages errors carry only the Messages API's error types; a failure names the model
 * tried last; refused requests leave no usage row.
 */

/** The Messages API's error types (its error reference; `request_too_large` comes from its edge). */
const MESSAGES_ERROR_TYPES = [
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "rate_limit_error",
  "api_error",
  "timeout_error",
  "overloaded_error",
];

let gw: TestGateway;
let starter: { accountId: string; key: string };
let enterprise: { accountId: string; key: string };
const records: RequestRecord[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: UNCACHED_CONFIG });
  gw.gateway.observers.push((record) => void records.push(record));
  starter = await gw.account("Starter");
  enterprise = await gw.account("Enterprise");
}, 60_000);
afterAll(() => gw.stop(), 30_000);

const anthropic = (key: string, headers: Record<string, string> = {}) => new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0, defaultHeaders: headers });
const openai = (key: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

/** The SDK error a call must end in. */
async function failure(call: Promise<unknown>): Promise<{ status: number; error: { type: string; message: string; param?: string | null }; headers: Headers }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status: number; error: { type: string; message: string; param?: string | null; error?: { type: string; message: string } }; headers: Headers };
    // The Anthropic SDK keeps the whole body (`{type, error}`), the OpenAI SDK the inner error.
    return { status: e.status, error: e.error.error ?? e.error, headers: e.headers };
  }
  throw new Error("the call succeeded");
}

const remainingOf = (headers: Headers | Record<string, string | null>): number =>
  Number(headers instanceof Headers ? headers.get("x-ratelimit-remaining-requests") : headers["x-ratelimit-remaining-requests"]);

describe("what the real APIs refuse", () => {
  test("empty messages / input → 400 naming the field, nothing counted, no upstream called", async () => {
    const received = gw.gateway.sim!.received.length;
    const first = await anthropic(starter.key).messages.create({ model: "normal", max_tokens: 32, messages: [{ role: "user", content: "count me" }] }).asResponse();
    const before = remainingOf(first.headers);
    expect(before).toBeGreaterThan(0);

    const refusals = [
      await failure(anthropic(starter.key).messages.create({ model: "normal", max_tokens: 32, messages: [] })),
      await failure(anthropic(starter.key).messages.countTokens({ model: "normal", messages: [] })),
      await failure(openai(starter.key).chat.completions.create({ model: "fast", messages: [] })),
      await failure(openai(starter.key).responses.create({ model: "fast", input: [] })),
      await failure(openai(starter.key).responses.create({ model: "fast", input: "" })),
    ];
    expect(refusals.map((r) => [r.status, r.error.type])).toEqual(Array(5).fill([400, "invalid_request_error"]));
    expect(refusals.map((r) => r.error.message.split(":")[0])).toEqual(["`messages`", "`messages`", "`messages`", "`input`", "`input`"]);
    expect(refusals.slice(2).map((r) => r.error.param)).toEqual(["messages", "input", "input"]);

    const next = await anthropic(starter.key).messages.create({ model: "normal", max_tokens: 32, messages: [{ role: "user", content: "count me too" }] }).asResponse();
    expect(remainingOf(next.headers)).toBe(before - 1);
    // The two answered requests reached the upstream; none of the refused ones did.
    expect(gw.gateway.sim!.received.length - received).toBe(2);
  });

  test("a `system` message inside Messages `messages` is refused where the API refuses it, naming it", async () => {
    const client = anthropic(enterprise.key);
    const cases: Array<[string, unknown[]]> = [
      // First: that is the top-level `system` parameter's place.
      ["`messages[0].role`", [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }]],
      // Followed by a user turn.
      ["`messages[1].role`", [{ role: "user", content: "hi" }, { role: "system", content: "be brief" }, { role: "user", content: "again" }]],
      // After an assistant turn.
      ["`messages[2].role`", [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "system", content: "be brief" }]],
    ];
    for (const [field, messages] of cases) {
      const refused = await failure(client.messages.create({ model: "normal", max_tokens: 32, messages: messages as Anthropic.MessageParam[] }));
      expect([refused.status, refused.error.type]).toEqual([400, "invalid_request_error"]);
      expect(refused.error.message).toStartWith(field);
      const counted = await failure(client.messages.countTokens({ model: "normal", messages: messages as Anthropic.MessageParam[] }));
      expect(counted.error.message).toStartWith(field);
    }
  });

  test("a `system` message right after the user's turn, as Claude Code sends it, is served", async () => {
    const messages = [{ role: "user", content: "hi" }, { role: "system", content: "agents: none" }] as unknown as Anthropic.MessageParam[];
    const answer = await anthropic(enterprise.key).messages.create({ model: "normal", max_tokens: 32, messages });
    expect(answer.type).toBe("message");
  });

  test("a Chat or Responses `system` message is the format's own and is served", async () => {
    const chat = await openai(enterprise.key).chat.completions.create({ model: "normal", messages: [{ role: "user", content: "hi" }, { role: "system", content: "be brief" }, { role: "user", content: "again" }] });
    expect(chat.object).toBe("chat.completion");
  });
});

describe("Messages errors use the Messages API's types", () => {
  test("upstream refusing the gateway's credentials → 502 `api_error`, not `upstream_error`", async () => {
    const refused = await failure(anthropic(enterprise.key, { "x-sim-fault": "status=401" }).messages.create({ model: "normal", max_tokens: 32, messages: [{ role: "user", content: "hi" }] }));
    expect(refused.status).toBe(502);
    expect(refused.error.type).toBe("api_error");
  });

  test("a translated stream that breaks ends in an error event of a Messages type", async () => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": enterprise.key, "content-type": "application/json", "anthropic-version": "2023-06-01", "x-sim-fault": "malformed=3" },
      body: JSON.stringify({ model: "fast", max_tokens: 64, stream: true, messages: [{ role: "user", content: "a long enough answer please" }] }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const errorLine = text.split("\n").find((line) => line.startsWith("data:") && line.includes('"type":"error"'));
    expect(errorLine).toBeDefined();
    const event = JSON.parse(errorLine!.slice(5)) as { error: { type: string } };
    expect(MESSAGES_ERROR_TYPES).toContain(event.error.type);
  });

  test("every failure status the simulated upstream can give maps to a Messages type", async () => {
    for (const status of [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529]) {
      const refused = await failure(anthropic(enterprise.key, { "x-sim-fault": `status=${status}` }).messages.create({ model: "normal", max_tokens: 32, messages: [{ role: "user", content: `status ${status}` }] }));
      expect(MESSAGES_ERROR_TYPES, `upstream ${status} → ${refused.error.type}`).toContain(refused.error.type);
    }
  });
});

test("when every model fails, x-router-model names the model tried last", async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${enterprise.key}`, "content-type": "application/json", "x-sim-fault": "status=500" },
    body: JSON.stringify({ model: "normal", messages: [{ role: "user", content: "fail everywhere" }] }),
  });
  expect(res.status).toBe(502);
  await res.text();
  // The `normal` pool is sim-normal, then sim-normal-b.
  expect(res.headers.get("x-router-model")).toBe("sim-normal-b");
});

test("refused requests (400, 403, 429) leave no usage row; they stay in the request log and metrics", async () => {
  const { accountId, key } = await gw.account("Starter");
  const client = anthropic(key);
  await failure(client.messages.create({ model: "normal", max_tokens: 32, messages: [] }));
  await failure(client.messages.create({ model: "smart", max_tokens: 32, messages: [{ role: "user", content: "not in my plan" }] }));
  // Over the concurrency limit of Starter (4): five slow requests at once.
  const slow = await Promise.allSettled(
    Array.from({ length: 5 }, (_, i) =>
      client.messages.create({ model: "normal", max_tokens: 32, messages: [{ role: "user", content: `slow ${i} [sim delay=400]` }] }),
    ),
  );
  expect(slow.filter((s) => s.status === "rejected").map((s) => ((s as PromiseRejectedResult).reason as { status: number }).status)).toEqual([429]);
  const served = await client.messages.create({ model: "normal", max_tokens: 32, messages: [{ role: "user", content: "served" }] }).withResponse();
  const servedId = served.response.headers.get("x-router-request-id")!;

  // Rows are written in order: once the last request's row is there, any earlier one would be too.
  type Row = { request_id: string; status: number };
  let rows: Row[] = [];
  for (let i = 0; i < 400 && !rows.some((r) => r.request_id === servedId); i++) {
    rows = await gw.gateway.database.rows<Row>(sql`select request_id, status from usage_records where account_id = ${accountId}`);
    if (!rows.some((r) => r.request_id === servedId)) await Bun.sleep(25);
  }
  expect(rows.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);

  const mine = records.filter((r) => r.accountId === accountId).map((r) => r.status);
  expect(mine.filter((s) => s >= 400).sort()).toEqual([400, 403, 429]);
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  expect(metrics).toMatch(/routelane_requests_total\{[^}]*status="403"[^}]*\} [1-9]/);
});
