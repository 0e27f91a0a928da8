import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { FIRST, SECOND, sdkClients, simMark, startRoutingGateway, twoModelConfig, upstreamModelsSince, type RoutingGateway } from "./start-routing-gateway.ts";

// `normal`: FIRST speaks only Messages, SECOND only Chat. `fast`: FIRST alone.
let gw: RoutingGateway;
let openai: OpenAI;
beforeAll(async () => {
  const config = twoModelConfig({ apis: [["messages"], ["chat"]] });
  gw = await startRoutingGateway({ ...config, tiers: { ...config.tiers!, fast: { ...DEFAULT_CONFIG.tiers.fast, models: [FIRST] } } });
  openai = sdkClients(gw).openai;
}, 60_000);
afterAll(() => gw?.stop(), 30_000);

const messages = [{ role: "user" as const, content: "Name three colours" }];

describe("Chat n > 1: only a model that speaks Chat can give several choices", () => {
  test("without n the tier's first model answers, translated (the baseline this test moves from)", async () => {
    const mark = simMark(gw);
    const { response } = await openai.chat.completions.create({ model: "normal", messages }).withResponse();
    expect(response.headers.get("x-router-model")).toBe(FIRST);
    expect(upstreamModelsSince(gw, mark)).toEqual([FIRST]);
  });

  test("n = 2 goes to the Chat model and comes back with two choices", async () => {
    const mark = simMark(gw);
    const { data, response } = await openai.chat.completions.create({ model: "normal", messages, n: 2 }).withResponse();
    expect(response.headers.get("x-router-model")).toBe(SECOND);
    expect(upstreamModelsSince(gw, mark)).toEqual([SECOND]);
    expect(data.model).toBe("normal");
    expect(data.choices.map((c) => c.index)).toEqual([0, 1]);
    for (const choice of data.choices) expect(choice.message.content).toBeTruthy();
  });

  test("streamed, n = 2 gives both choices' text and finish", async () => {
    const { data: stream, response } = await openai.chat.completions.create({ model: "normal", messages, n: 2, stream: true }).withResponse();
    expect(response.headers.get("x-router-model")).toBe(SECOND);
    const texts = new Map<number, string>();
    const finishes = new Map<number, string>();
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        texts.set(choice.index, (texts.get(choice.index) ?? "") + (choice.delta.content ?? ""));
        if (choice.finish_reason) finishes.set(choice.index, choice.finish_reason);
      }
    }
    expect([...texts.keys()].sort()).toEqual([0, 1]);
    for (const text of texts.values()) expect(text.length).toBeGreaterThan(0);
    expect([...finishes.values()]).toEqual(["stop", "stop"]);
  });

  test("on a tier with no Chat model, n = 2 is refused with 400 naming n, before any model is called", async () => {
    const mark = simMark(gw);
    const error = await openai.chat.completions.create({ model: "fast", messages, n: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const body = (error as InstanceType<typeof OpenAI.BadRequestError>).error as { type?: string; param?: string; code?: string; message?: string };
    expect(body).toMatchObject({ type: "invalid_request_error", param: "n", code: "no_model_available" });
    expect(body.message).toContain("`fast`");
    expect(upstreamModelsSince(gw, mark)).toEqual([]);
  });

  test("n = 1 on that tier is answered as usual", async () => {
    const { data, response } = await openai.chat.completions.create({ model: "fast", messages, n: 1 }).withResponse();
    expect(response.headers.get("x-router-model")).toBe(FIRST);
    expect(data.choices).toHaveLength(1);
  });
});
