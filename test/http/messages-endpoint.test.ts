import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lastUpstreamRequest, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { SAME_FORMAT_CONFIG } from "../helpers/same-format-config.ts";

let gw: TestGateway;
let key: string;
let client: Anthropic;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: SAME_FORMAT_CONFIG });
  ({ key } = await gw.account("Enterprise"));
  client = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
}, 30_000);
afterAll(() => gw.stop(), 30_000);

const params = {
  model: "normal",
  max_tokens: 512,
  system: "You are terse.",
  messages: [{ role: "user" as const, content: "Say hello to the gateway" }],
};

describe("POST /v1/messages", () => {
  test("non-stream through the SDK answers in Messages shape with the tier as model", async () => {
    const { data, response } = await client.messages.create(params).withResponse();
    expect(data.type).toBe("message");
    expect(data.role).toBe("assistant");
    expect(data.model).toBe("normal");
    expect(data.stop_reason).toBe("end_turn");
    const text = data.content.filter((b) => b.type === "text").map((b) => b.text).join("");
    expect(text).toContain("Say hello to the gateway");
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.usage.output_tokens).toBeGreaterThan(0);
    expect(response.headers.get("x-router-tier")).toBe("normal");
    expect(response.headers.get("x-router-model")).toBe("sim-normal");
    expect(response.headers.get("x-router-effort")).toBe("medium");
    expect(response.headers.get("x-router-source")).toBe("default");
    expect(response.headers.get("x-router-request-id")).toMatch(/^[A-Za-z0-9]{16}$/);
  });

  test("stream through the SDK: events of the format, tier as model, headers with the first byte", async () => {
    const stream = client.messages.stream(params);
    const { response } = await stream.withResponse();
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("x-router-model")).toBe("sim-normal");
    const events: string[] = [];
    stream.on("streamEvent", (event) => events.push(event.type));
    const message = await stream.finalMessage();
    expect(message.model).toBe("normal");
    expect(message.content.some((b) => b.type === "text" && b.text.length > 0)).toBe(true);
    expect(events[0]).toBe("message_start");
    expect(events).toContain("content_block_delta");
    expect(events.at(-1)).toBe("message_stop");
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  test("the effort is the tier's, replacing thinking and output_config.effort the client sent", async () => {
    await client.messages.create({
      ...params,
      model: "smart",
      thinking: { type: "enabled", budget_tokens: 2048 },
      output_config: { effort: "low" },
    } as Anthropic.MessageCreateParamsNonStreaming);
    const upstream = lastUpstreamRequest(gw);
    expect(upstream.body.model).toBe("sim-smart");
    expect(upstream.body.thinking).toEqual({ type: "adaptive" });
    expect(upstream.body.output_config).toEqual({ effort: "high" });
  });

  test("the fast tier's effort is off: thinking is disabled whatever the client asked", async () => {
    await client.messages.create({ ...params, model: "fast", thinking: { type: "enabled", budget_tokens: 4096 } });
    expect(lastUpstreamRequest(gw).body.thinking).toEqual({ type: "disabled" });
  });

  test("unknown fields, beta headers and the query string pass; any anthropic-version is accepted", async () => {
    const res = await fetch(`${gw.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": key,
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14",
      },
      body: JSON.stringify({
        ...params,
        context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
        metadata: { user_id: '{"session_id":"abc"}' },
        some_future_field: { nested: [1, 2, 3] },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe("normal");
    const upstream = lastUpstreamRequest(gw);
    expect(upstream.headers["anthropic-beta"]).toBe("claude-code-20250219,interleaved-thinking-2025-05-14");
    expect(upstream.headers["anthropic-version"]).toBe("2023-06-01");
    expect(upstream.body.some_future_field).toEqual({ nested: [1, 2, 3] });
    expect(upstream.body.context_management).toEqual({ edits: [{ type: "clear_thinking_20251015", keep: "all" }] });
    expect(upstream.body.metadata).toEqual({ user_id: '{"session_id":"abc"}' });
    // The caller's key never goes upstream.
    expect(JSON.stringify(upstream.headers)).not.toContain(key);
  });

  test("model empty, auto or default runs on the account's default tier", async () => {
    const { key: proKey } = await gw.account("Pro", "smart");
    const pro = new Anthropic({ baseURL: gw.url, apiKey: proKey, maxRetries: 0 });
    for (const model of ["", "auto", "default"]) {
      const { data, response } = await pro.messages.create({ ...params, model }).withResponse();
      expect(response.headers.get("x-router-tier")).toBe("smart");
      expect(data.model).toBe("smart");
    }
  });

  test("x-router-request-id is 16 characters and unique per request, on errors too", async () => {
    const ids = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const res = await fetch(`${gw.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": i % 2 === 0 ? key : "rl_wrong" },
          body: JSON.stringify(params),
        });
        await res.arrayBuffer();
        return res.headers.get("x-router-request-id");
      }),
    );
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("tool calls come back through the stream with their arguments", async () => {
    const message = await client.messages
      .stream({
        ...params,
        messages: [{ role: "user", content: "What is the weather? [sim tool=get_weather]" }],
        tools: [
          {
            name: "get_weather",
            description: "Weather for a city",
            input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        ],
      })
      .finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    const call = message.content.find((b) => b.type === "tool_use");
    expect(call?.type === "tool_use" && call.name).toBe("get_weather");
    expect(call?.type === "tool_use" && typeof (call.input as { city?: unknown }).city).toBe("string");
  });
});
