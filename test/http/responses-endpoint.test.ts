import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { lastUpstreamRequest, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { SAME_FORMAT_CONFIG } from "../helpers/same-format-config.ts";

let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: SAME_FORMAT_CONFIG });
  const { key } = await gw.account("Enterprise");
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
}, 30_000);
afterAll(() => gw.stop(), 30_000);

describe("POST /v1/responses", () => {
  test("non-stream through the SDK", async () => {
    const { data, response } = await client.responses.create({ model: "normal", input: "Explain the responses endpoint" }).withResponse();
    expect(data.object).toBe("response");
    expect(data.model).toBe("normal");
    expect(data.status).toBe("completed");
    expect(data.output_text).toContain("Explain the responses endpoint");
    expect(data.usage?.input_tokens).toBeGreaterThan(0);
    expect(data.usage?.total_tokens).toBe((data.usage?.input_tokens ?? 0) + (data.usage?.output_tokens ?? 0));
    expect(response.headers.get("x-router-source")).toBe("default");
  });

  test("stream through the SDK to response.completed, every event with the tier as model", async () => {
    const stream = client.responses.stream({ model: "smart", input: "Stream the responses endpoint" });
    const types: string[] = [];
    stream.on("event", (event) => types.push(event.type));
    const final = await stream.finalResponse();
    expect(final.model).toBe("smart");
    expect(final.output_text).toContain("Stream the responses endpoint");
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_text.delta");
    expect(types).toContain("response.output_item.done");
    expect(types.at(-1)).toBe("response.completed");
  });

  test("reasoning.effort is the tier's; other reasoning fields pass through", async () => {
    await client.responses.create({
      model: "smart",
      input: [{ role: "developer", content: "Be brief." }, { role: "user", content: "hi" }],
      reasoning: { effort: "low", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      store: false,
    });
    const upstream = lastUpstreamRequest(gw).body;
    expect(upstream.reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(upstream.include).toEqual(["reasoning.encrypted_content"]);
    expect(upstream.store).toBe(false);
    expect(upstream.model).toBe("sim-smart");
  });

  test("smart-plus is an Enterprise tier", async () => {
    const { data, response } = await client.responses.create({ model: "smart-plus", input: "hello" }).withResponse();
    expect(data.model).toBe("smart-plus");
    expect(response.headers.get("x-router-effort")).toBe("max");
  });
});
