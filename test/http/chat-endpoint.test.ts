import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { lastUpstreamRequest, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { SAME_FORMAT_CONFIG } from "../helpers/same-format-config.ts";

let gw: TestGateway;
let key: string;
let client: OpenAI;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: SAME_FORMAT_CONFIG });
  ({ key } = await gw.account("Pro"));
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
}, 30_000);
afterAll(() => gw.stop(), 30_000);

const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "Describe the chat endpoint" },
];

describe("POST /v1/chat/completions", () => {
  test("non-stream through the SDK", async () => {
    const { data, response } = await client.chat.completions.create({ model: "normal", messages }).withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("normal");
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.choices[0]?.message.content).toContain("Describe the chat endpoint");
    expect(data.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage?.total_tokens).toBe((data.usage?.prompt_tokens ?? 0) + (data.usage?.completion_tokens ?? 0));
    expect(response.headers.get("x-router-tier")).toBe("normal");
    expect(response.headers.get("x-router-effort")).toBe("medium");
    expect(response.headers.get("x-request-id")).toBe(response.headers.get("x-router-request-id"));
  });

  test("stream with include_usage: chunks carry the tier, a usage chunk ends the stream", async () => {
    const stream = await client.chat.completions.create({
      model: "smart",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    const models = new Set<string>();
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      models.add(chunk.model);
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect([...models]).toEqual(["smart"]);
    expect(text).toContain("Describe the chat endpoint");
    expect(finish).toBe("stop");
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  test("reasoning_effort is the tier's, whatever the client sent", async () => {
    await client.chat.completions.create({ model: "fast", messages, reasoning_effort: "high" });
    expect(lastUpstreamRequest(gw).body.reasoning_effort).toBe("none");
    await client.chat.completions.create({ model: "smart", messages, reasoning_effort: "low" });
    expect(lastUpstreamRequest(gw).body.reasoning_effort).toBe("high");
  });

  test("parallel tool calls stream with index, id and argument fragments", async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = ["get_weather", "get_time"].map((name) => ({
      type: "function",
      function: { name, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
    }));
    const stream = client.chat.completions.stream({
      model: "normal",
      messages: [{ role: "user", content: "Weather and time in Paris [sim tool=get_weather,get_time]" }],
      tools,
      stream: true,
    });
    const completion = await stream.finalChatCompletion();
    const calls = completion.choices[0]?.message.tool_calls ?? [];
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(calls.map((c) => (c.type === "function" ? c.function.name : ""))).toEqual(["get_weather", "get_time"]);
    for (const call of calls) {
      if (call.type !== "function") throw new Error("expected a function call");
      expect(typeof JSON.parse(call.function.arguments).city).toBe("string");
    }
  });
});
