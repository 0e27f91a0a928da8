import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { seededRandom, type Json } from "../helpers/seeded-random.ts";

/**
 * Property: no request body, of any shape, gets a 5xx or an error outside the caller's shape. The
 * bodies are generated from a fixed seed (a failure names its case, and the same seed repeats
 * it): valid requests of each format with known fields replaced by values of other types, random
 * JSON documents, and raw texts JSON.stringify cannot write (huge numbers, lone surrogates,
 * nesting far past the limit), sent to every endpoint, on tiers whose models speak each format.
 */

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 60_000);

/** Tokens JSON.stringify cannot produce, written into the text where their placeholder stands. */
const RAW_TOKENS = [
  "1e400",
  "-1e400",
  "123456789012345678901234567890123456789",
  "-0",
  "0.0000000000000000000000000001",
  "1E+2",
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"\\u0000"',
  '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
  "[".repeat(300) + "]".repeat(300),
  "[".repeat(100_000) + "]".repeat(100_000),
  '{"a":'.repeat(2000) + "1" + "}".repeat(2000),
];

/** Every path of a document (objects and arrays, not the root). */
function paths(doc: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (doc === null || typeof doc !== "object") return [];
  const entries: Array<[string | number, Json]> = Array.isArray(doc) ? doc.map((v, i) => [i, v]) : Object.entries(doc);
  return entries.flatMap(([k, v]) => [[...prefix, k], ...paths(v, [...prefix, k])]);
}

/** A copy of `doc` with the value at `path` replaced. */
function replaced(doc: Json, path: ReadonlyArray<string | number>, value: Json): Json {
  const copy = structuredClone(doc);
  let parent = copy as Record<string | number, Json>;
  for (const part of path.slice(0, -1)) parent = parent[part] as Record<string | number, Json>;
  parent[path.at(-1)!] = value;
  return copy;
}

function generator(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const raws: string[] = [];
  const raw = (token: string): string => {
    raws.push(token);
    return `__raw_${raws.length - 1}__`;
  };
  const string = (): string =>
    pick([
      () => "",
      () => "hi",
      () => "x".repeat(int(200_000)),
      () => "ünïcødé ✓ 🚀 \u200b",
      () => "user",
      () => "assistant",
      () => "system",
      () => "tool",
      () => "text",
      () => "tool_use",
      () => "function",
      () => "image",
      () => "{not json",
      () => "data:image/png;base64,AAAA",
      () => String.fromCharCode(...Array.from({ length: int(40) }, () => int(0xd7ff))),
    ])();
  const number = (): number | string =>
    pick<() => number | string>([
      () => 0,
      () => -1,
      () => 1.5,
      () => 2 ** 31,
      () => 2 ** 53 + 2,
      () => Number.MAX_VALUE,
      () => -Number.MAX_VALUE,
      () => Number.MIN_VALUE,
      () => int(100_000),
      () => raw(pick(RAW_TOKENS.slice(0, 6))),
    ])();
  const value = (depth: number): Json => {
    const kinds = depth > 5 ? 5 : 8;
    switch (int(kinds)) {
      case 0:
        return null;
      case 1:
        return next() < 0.5;
      case 2:
        return number();
      case 3:
      case 4:
        return string();
      case 5:
        return raw(pick(RAW_TOKENS.slice(6)));
      case 6:
        return Array.from({ length: int(5) }, () => value(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: int(5) }, () => [pick(FIELD_NAMES), value(depth + 1)]));
    }
  };
  /** A copy of `doc` with one to three paths replaced by random values (or removed). */
  const mutate = (doc: Json): Json => {
    const copy = structuredClone(doc);
    for (let n = next() < 0.6 ? 1 : 2 + int(2); n > 0; n--) {
      const all = paths(copy);
      if (all.length === 0) break;
      const path = pick(all);
      let parent = copy as Record<string | number, Json>;
      for (const part of path.slice(0, -1)) parent = parent[part] as Record<string | number, Json>;
      const last = path.at(-1)!;
      if (next() < 0.15 && !Array.isArray(parent)) delete parent[last];
      else parent[last] = value(1);
    }
    return copy;
  };
  const text = (doc: Json): string => JSON.stringify(doc).replace(/"__raw_(\d+)__"/g, (_, i: string) => raws[Number(i)]!);
  return { next, int, pick, value, mutate, text };
}

/** Names the formats know, so random objects often hit a field a decoder reads. */
const FIELD_NAMES = [
  "type", "role", "content", "text", "name", "input", "id", "tool_use_id", "is_error", "source", "data", "media_type", "url",
  "signature", "thinking", "tool_calls", "function", "arguments", "tool_call_id", "image_url", "detail", "call_id", "output",
  "summary", "encrypted_content", "parameters", "input_schema", "properties", "required", "format", "schema", "strict", "effort",
  "budget_tokens", "cache_control", "citations", "file", "file_data", "refusal", "reasoning_content", "status", "x",
];

const messagesBody: Json = {
  model: "normal",
  max_tokens: 256,
  system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
  messages: [
    { role: "user", content: "What is the weather in Paris?" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "sunny" }], is_error: false },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        { type: "document", source: { type: "text", media_type: "text/plain", data: "notes" } },
        { type: "text", text: "And tomorrow?" },
      ],
    },
  ],
  tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }],
  tool_choice: { type: "auto", disable_parallel_tool_use: false },
  thinking: { type: "enabled", budget_tokens: 1024 },
  output_config: { effort: "low" },
  temperature: 1,
  top_p: 0.9,
  top_k: 5,
  stop_sequences: ["END"],
  metadata: { user_id: "u1" },
  stream: false,
};

const chatBody: Json = {
  model: "fast",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "developer", content: [{ type: "text", text: "Use tools." }] },
    { role: "user", content: [{ type: "text", text: "Weather in Paris?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" } }] },
    { role: "assistant", content: null, reasoning_content: "think", tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    { role: "tool", tool_call_id: "call_1", content: "sunny" },
    { role: "user", content: "And tomorrow?", name: "me" },
  ],
  tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false } }],
  tool_choice: { type: "function", function: { name: "get_weather" } },
  parallel_tool_calls: true,
  response_format: { type: "json_schema", json_schema: { name: "w", schema: { type: "object" }, strict: true } },
  max_completion_tokens: 256,
  max_tokens: 256,
  n: 1,
  stop: ["END"],
  temperature: 0.5,
  top_p: 1,
  seed: 7,
  user: "u1",
  reasoning_effort: "low",
  stream: false,
  stream_options: { include_usage: true },
  metadata: { a: "b" },
  logprobs: false,
};

const responsesBody: Json = {
  model: "smart",
  instructions: "Be brief.",
  input: [
    { role: "user", content: [{ type: "input_text", text: "Weather in Paris?" }, { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" }] },
    { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "think" }], encrypted_content: "abc" },
    { type: "function_call", id: "fc_1", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
    { type: "function_call_output", call_id: "call_1", output: "sunny" },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Sunny." }] },
    { role: "user", content: "And tomorrow?" },
  ],
  tools: [{ type: "function", name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }],
  tool_choice: "auto",
  parallel_tool_calls: true,
  text: { format: { type: "json_schema", name: "w", schema: { type: "object" }, strict: true } },
  reasoning: { effort: "low", summary: "auto" },
  include: ["reasoning.encrypted_content"],
  max_output_tokens: 256,
  temperature: 1,
  top_p: 1,
  store: false,
  metadata: { a: "b" },
  user: "u1",
  truncation: "disabled",
  stream: false,
};

interface Endpoint {
  readonly path: string;
  readonly messagesShape: boolean;
  readonly base: Json;
}

const ENDPOINTS: readonly Endpoint[] = [
  { path: "/v1/messages", messagesShape: true, base: messagesBody },
  { path: "/v1/messages/count_tokens", messagesShape: true, base: messagesBody },
  { path: "/v1/chat/completions", messagesShape: false, base: chatBody },
  { path: "/v1/responses", messagesShape: false, base: responsesBody },
];

const TIERS = ["fast", "normal", "smart", "smart-plus", "auto", "unknown-tier"] as const;

/** The body a case sends: mostly a mutated valid request, sometimes random JSON or raw text. */
function caseBody(g: ReturnType<typeof generator>, base: Json): string {
  const roll = g.next();
  if (roll < 0.08) return g.text(g.value(0));
  if (roll < 0.12) return g.pick(RAW_TOKENS) + (g.next() < 0.5 ? "" : " trailing");
  const doc = structuredClone(base) as Record<string, Json>;
  doc.model = g.pick(TIERS);
  doc.stream = g.next() < 0.4;
  if (g.next() < 0.1) doc.x = g.value(0);
  return g.text(g.next() < 0.1 ? doc : g.mutate(doc));
}

function expectCallerShape(text: string, messagesShape: boolean, label: string): void {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${label}: error body is not JSON: ${text.slice(0, 200)}`);
  }
  const body = json as { type?: unknown; error?: { type?: unknown; message?: unknown } };
  if (messagesShape) expect(body.type, label).toBe("error");
  expect(typeof body.error?.type, label).toBe("string");
  expect(typeof body.error?.message, label).toBe("string");
}

const CASES_PER_ENDPOINT = 120;

describe("fuzzed request bodies never get a 5xx", () => {
  for (const [n, endpoint] of ENDPOINTS.entries()) {
    test(
      `${endpoint.path}: ${CASES_PER_ENDPOINT} generated bodies`,
      async () => {
        const g = generator(1000 + n);
        for (let i = 0; i < CASES_PER_ENDPOINT; i++) {
          const body = caseBody(g, endpoint.base);
          const label = `${endpoint.path} case ${i} (seed ${1000 + n}): ${body.slice(0, 160)}`;
          const res = await fetch(gw.url + endpoint.path, {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
            body,
          });
          const text = await res.text();
          expect(res.status, `${label} → ${text.slice(0, 300)}`).toBeLessThan(500);
          if (res.status >= 400) expectCallerShape(text, endpoint.messagesShape, label);
          else if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) JSON.parse(text);
        }
      },
      120_000,
    );
  }

  for (const endpoint of ENDPOINTS) {
    test(`${endpoint.path}: every field of a full request, in turn, given a value of each other type`, async () => {
      const WRONG: readonly Json[] = [null, -1.5, "x", [], {}, true];
      const cases: string[] = [];
      for (const [i, path] of paths(endpoint.base).entries()) {
        // Each tier in turn, so the same-format and the translated paths both meet every field.
        const base = { ...(endpoint.base as Record<string, Json>), model: ["fast", "normal", "smart"][i % 3]! };
        for (const value of WRONG) cases.push(JSON.stringify(replaced(base, path, value)));
      }
      for (let at = 0; at < cases.length; at += 8) {
        await Promise.all(
          cases.slice(at, at + 8).map(async (body) => {
            const res = await fetch(gw.url + endpoint.path, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" }, body });
            const text = await res.text();
            expect(res.status, `${body.slice(0, 200)} → ${text.slice(0, 300)}`).toBeLessThan(500);
            if (res.status >= 400) expectCallerShape(text, endpoint.messagesShape, body.slice(0, 200));
          }),
        );
      }
    }, 180_000);
  }

  test("admin routes: generated bodies get 4xx or 2xx in the OpenAI error shape", async () => {
    const g = generator(2000);
    const { accountId } = await gw.account("Starter");
    const targets: Array<[string, string, () => Json]> = [
      ["POST", "/admin/accounts", () => g.mutate({ plan: "Pro", default_tier: "normal", email: "a@b.c" })],
      ["PATCH", `/admin/accounts/${accountId}`, () => g.mutate({ plan: "Pro", default_tier: "fast", limits: { requests_per_minute: 10, concurrent_requests: 2, tokens_per_month: 1000 } })],
      ["POST", "/admin/route/explain", () => g.mutate({ format: g.pick(["messages", "chat", "responses"]), body: g.pick([messagesBody, chatBody, responsesBody]), account: accountId })],
    ];
    for (let i = 0; i < 60; i++) {
      const [method, path, make] = g.pick(targets);
      const body = g.next() < 0.15 ? g.pick(RAW_TOKENS) : g.text(make());
      const res = await fetch(gw.url + path, { method, headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` }, body });
      const text = await res.text();
      const label = `${method} ${path} case ${i}: ${body.slice(0, 160)} → ${text.slice(0, 300)}`;
      expect(res.status, label).toBeLessThan(500);
      if (res.status >= 400) expectCallerShape(text, false, label);
    }
  }, 120_000);

  test("handoff upload: random bytes with a job token of another job or none get 4xx", async () => {
    const g = generator(3000);
    for (let i = 0; i < 20; i++) {
      const body = g.text(g.value(0));
      const res = await fetch(`${gw.url}/v1/handoff/job_${i}/upload`, {
        method: "POST",
        headers: { "content-type": "application/gzip", ...(i % 2 ? { authorization: "Bearer rlj_not-a-token" } : {}) },
        body,
      });
      const text = await res.text();
      expect(res.status, text).toBeLessThan(500);
      expectCallerShape(text, true, `upload case ${i}`);
    }
  }, 60_000);
});

describe("nesting past the limit", () => {
  const deep = (levels: number) => '{"model":"normal","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"x":' + "[".repeat(levels) + "]".repeat(levels) + "}";

  for (const endpoint of ENDPOINTS) {
    test(`${endpoint.path}: 100,000 levels → 400 naming the limit, in the caller's shape`, async () => {
      const body = endpoint.path === "/v1/responses" ? deep(100_000).replace('"messages"', '"input"') : deep(100_000);
      const res = await fetch(gw.url + endpoint.path, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body });
      const text = await res.text();
      expect(res.status).toBe(400);
      expectCallerShape(text, endpoint.messagesShape, endpoint.path);
      const error = (JSON.parse(text) as { error: { type: string; message: string } }).error;
      expect(error.type).toBe("invalid_request_error");
      expect(error.message).toContain("256 levels");
    });
  }

  test("a body nested exactly to the limit is served; one level more is refused", async () => {
    // The body (1), `metadata` (2) and 254 arrays: 256 levels.
    const within = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: '{"model":"fast","messages":[{"role":"user","content":"hi"}],"metadata":{"x":' + "[".repeat(254) + "]".repeat(254) + "}}",
    });
    expect(within.status).not.toBe(400);
    await within.text();
    const past = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: '{"model":"fast","messages":[{"role":"user","content":"hi"}],"metadata":{"x":' + "[".repeat(255) + "]".repeat(255) + "}}",
    });
    expect(past.status).toBe(400);
    expect(await past.text()).toContain("256 levels");
  });

  test("brackets inside strings, escaped quotes included, do not count", async () => {
    const text = '\\"' + "[{".repeat(5000);
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ model: "normal", max_tokens: 16, messages: [{ role: "user", content: text }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
  });

  test("admin routes refuse it too", async () => {
    for (const [method, path] of [["POST", "/admin/accounts"], ["POST", "/admin/route/explain"]] as const) {
      const res = await fetch(gw.url + path, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
        body: '{"format":"messages","body":' + '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000) + "}",
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("256 levels");
    }
  });
});
