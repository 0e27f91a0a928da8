import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WIRE_FORMATS, type WireFormat } from "../../src/canonical/wire-format.ts";
import type { FileConfig, ModelConfig } from "../../src/config/schema.ts";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { rejectionOf } from "../helpers/rejection-of.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { ask, makeClients, type Clients, type ToolSpec } from "./drive-clients.ts";
import { aiSdkModel, askAiSdk } from "./drive-ai-sdk.ts";
import { NORMALIZE, type Normalized } from "./normalize.ts";

/**
 * The same scenarios through all nine (client format × upstream API) pairs, with the official SDKs
 * as clients. The expected answer is the simulated upstream's own: the request the gateway sent is
 * replayed to the sim directly (it answers deterministically, streamed or not), read in the
 * upstream's format, and compared with what the client got in its format.
 */
const TIER_OF_API: Readonly<Record<WireFormat, "fast" | "normal" | "smart">> = { chat: "fast", messages: "normal", responses: "smart" };

const model = (upstreamId: string, api: WireFormat): ModelConfig => ({
  ...DEFAULT_CONFIG.models["sim-normal"]!,
  upstreamId,
  apis: [api],
});

const tierOf = (name: string, defaultEffort: "medium") => ({ ...DEFAULT_CONFIG.tiers.normal, displayName: name, models: [name], defaultEffort });

const CONFIG: FileConfig = {
  ...UNCACHED_CONFIG,
  models: { "up-messages": model("up-messages", "messages"), "up-chat": model("up-chat", "chat"), "up-responses": model("up-responses", "responses") },
  tiers: {
    fast: tierOf("up-chat", "medium"),
    normal: tierOf("up-messages", "medium"),
    smart: tierOf("up-responses", "medium"),
    "smart-plus": tierOf("up-messages", "medium"),
  },
};

const TOOLS: readonly ToolSpec[] = [
  { name: "get_weather", description: "Weather for a city", schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  { name: "get_time", description: "Local time in a city", schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
];

/** A 1×1 PNG. */
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let gw: TestGateway;
let clients: Clients;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: CONFIG, recordSim: true });
  ({ key } = await gw.account("Enterprise"));
  clients = makeClients(gw.url, key);
}, 60_000);
afterAll(() => gw.stop(), 30_000);

interface Sent {
  readonly api: WireFormat;
  readonly body: Record<string, unknown>;
}

const API_OF_PATH: Readonly<Record<string, WireFormat>> = { "/v1/messages": "messages", "/v1/chat/completions": "chat", "/v1/responses": "responses" };

function lastSent(): Sent {
  const received = gw.gateway.sim!.received.at(-1)!;
  return { api: API_OF_PATH[received.path]!, body: received.body as Record<string, unknown> };
}

/** The upstream's own answer to the request the gateway sent: replayed non-stream, read in its format. */
async function truthOf(sent: Sent): Promise<Normalized> {
  const { stream: _s, stream_options: _o, ...body } = sent.body;
  const path = Object.entries(API_OF_PATH).find(([, api]) => api === sent.api)![0];
  const headers: Record<string, string> = { "content-type": "application/json", "anthropic-version": "2023-06-01" };
  const response = await fetch(gw.gateway.sim!.url + path, { method: "POST", headers, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return NORMALIZE[sent.api](await response.json());
}

/** What a client of `format` must see of the upstream's answer. */
function expectSame(client: Normalized, truth: Normalized): void {
  expect(client.text).toBe(truth.text);
  expect(client.toolCalls.map((c) => [c.name, c.args])).toEqual(truth.toolCalls.map((c) => [c.name, c.args]));
  expect(client.stop).toBe(truth.stop);
  expect(client.input).toBe(truth.input);
  expect(client.output).toBe(truth.output);
  expect(client.cacheRead).toBe(truth.cacheRead);
  if (client.cacheWrite !== null && truth.cacheWrite !== null) expect(client.cacheWrite).toBe(truth.cacheWrite);
}

const PAIRS = WIRE_FORMATS.flatMap((client) => WIRE_FORMATS.map((api) => [client, api] as const));

describe.each(PAIRS)("%s client → %s upstream", (format, api) => {
  const tier = TIER_OF_API[api];

  describe.each([false, true])("stream=%p", (stream) => {
    test("plain text with a system prompt", async () => {
      const { normalized } = await ask(clients, format, tier, { system: "You are terse.", user: "Describe the conformance check please" }, stream);
      const sent = lastSent();
      expect(sent.api).toBe(api);
      expect(normalized.text).toContain("Describe the conformance check please");
      expect(normalized.stop).toBe("end_turn");
      expectSame(normalized, await truthOf(sent));
    });

    test("parallel tool calls, then their results (one an error) go back", async () => {
      const first = await ask(clients, format, tier, { user: "[sim tool=get_weather,get_time args={\"city\":\"Paris\"}] weather and time?", tools: TOOLS }, stream);
      expectSame(first.normalized, await truthOf(lastSent()));
      expect(first.normalized.stop).toBe("tool_use");
      expect(first.normalized.toolCalls.map((c) => [c.name, c.args])).toEqual([
        ["get_weather", { city: "Paris" }],
        ["get_time", { city: "Paris" }],
      ]);
      const [weather, time] = first.normalized.toolCalls;
      const second = await ask(
        clients,
        format,
        tier,
        {
          user: "",
          tools: TOOLS,
          previous: {
            answer: first.answer,
            user: "[sim tool=get_weather,get_time args={\"city\":\"Paris\"}] weather and time?",
            results: [
              { callId: weather!.id, content: "Sunny, 21 C", isError: false },
              { callId: time!.id, content: "clock service unavailable", isError: true },
            ],
          },
        },
        stream,
      );
      const sent = lastSent();
      expect(JSON.stringify(sent.body)).toContain("Sunny, 21 C");
      expect(JSON.stringify(sent.body)).toContain("clock service unavailable");
      expect(second.normalized.text).toStartWith("Tool result received:");
      expect(second.normalized.stop).toBe("end_turn");
      expectSame(second.normalized, await truthOf(sent));
    });

    test("the AI SDK as the client: plain text, then parallel tool calls and their results", async () => {
      const model = aiSdkModel(format, gw.url, key, tier);
      const plain = await askAiSdk(model, { system: "You are terse.", user: "Describe the conformance check please" }, stream);
      expect(lastSent().api).toBe(api);
      expect(plain.normalized.text).toContain("Describe the conformance check please");
      expect(plain.normalized.stop).toBe("end_turn");
      expectSame(plain.normalized, await truthOf(lastSent()));

      const user = '[sim tool=get_weather,get_time args={"city":"Paris"}] weather and time?';
      const first = await askAiSdk(model, { user, tools: TOOLS }, stream);
      expectSame(first.normalized, await truthOf(lastSent()));
      expect(first.normalized.stop).toBe("tool_use");
      expect(first.normalized.toolCalls.map((c) => [c.name, c.args])).toEqual([
        ["get_weather", { city: "Paris" }],
        ["get_time", { city: "Paris" }],
      ]);
      const [weather, time] = first.normalized.toolCalls;
      const results = [
        { callId: weather!.id, toolName: "get_weather", content: "Sunny, 21 C", isError: false },
        { callId: time!.id, toolName: "get_time", content: "clock service unavailable", isError: true },
      ];
      const second = await askAiSdk(model, { user: "", tools: TOOLS, previous: { answer: null, results } }, stream, first.messages);
      const sent = lastSent();
      expect(JSON.stringify(sent.body)).toContain("Sunny, 21 C");
      expect(JSON.stringify(sent.body)).toContain("clock service unavailable");
      expect(second.normalized.text).toStartWith("Tool result received:");
      expect(second.normalized.stop).toBe("end_turn");
      expectSame(second.normalized, await truthOf(sent));
    });

    test("an image reaches the upstream as an image", async () => {
      const { normalized } = await ask(clients, format, tier, { user: "What is in the picture?", imageBase64Png: PIXEL }, stream);
      const sent = lastSent();
      expect(JSON.stringify(sent.body)).toContain(PIXEL);
      const imageShape = { messages: '"type":"image"', chat: '"type":"image_url"', responses: '"type":"input_image"' }[api];
      expect(JSON.stringify(sent.body)).toContain(imageShape);
      expectSame(normalized, await truthOf(sent));
    });

    test("max tokens stops the answer as max_tokens", async () => {
      const { normalized } = await ask(clients, format, tier, { user: "[sim words=60] go on at length", maxTokens: 20 }, stream);
      expect(normalized.stop).toBe("max_tokens");
      expectSame(normalized, await truthOf(lastSent()));
    });

    test("an upstream error before the first byte is the caller's error with a fitting status", async () => {
      const error = await rejectionOf(ask(clients, format, tier, { user: "hello", headers: { "x-sim-fault": "status=529" } }, stream));
      const status = (error as { status?: number }).status;
      expect(status).toBe(format === "messages" ? 529 : 503);
    });

    if (stream) {
      test("a cut after the first byte fails the stream, never ends it cleanly", async () => {
        const error = await rejectionOf(ask(clients, format, tier, { user: "[sim words=40] hello", headers: { "x-sim-fault": "cut=4" } }, stream));
        expect(error).toBeInstanceOf(Error);
      });
    }
  });
});

describe.each(["messages", "responses"] as const)("thinking carried over two turns: %s client", (format) => {
  describe.each(["messages", "responses"] as const)("→ %s upstream", (api) => {
    test.each([false, true])("stream=%p: the second turn sends the first turn's reasoning back unchanged", async (stream) => {
      const tier = TIER_OF_API[api];
      const first = await ask(clients, format, tier, { user: "Think about the plan" }, stream);
      expect(first.normalized.thinking.length).toBeGreaterThan(0);
      const original = (await truthOf(lastSent())).thinking;
      expect(original.length).toBeGreaterThan(0);
      await ask(clients, format, tier, { user: "And now?", previous: { answer: first.answer, user: "Think about the plan" } }, stream);
      const resent = JSON.stringify(lastSent().body);
      // The upstream's own signature (Messages) or encrypted reasoning (Responses) came back intact.
      for (const t of original) expect(resent).toContain(JSON.stringify(t.signature).slice(1, -1));
    });
  });
});
