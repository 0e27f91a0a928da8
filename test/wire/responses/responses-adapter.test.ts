import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { DEFAULT_CONFIG } from "../../../src/config/default-config.ts";
import { unpackResponsesReasoning } from "../../../src/wire/pack-reasoning.ts";
import { startSim, type SimServer } from "../../../src/sim/start-sim.ts";
import { responsesAdapter } from "../../../src/wire/responses/upstream-side.ts";
import { setResponsesEffort } from "../../../src/wire/responses/set-effort.ts";
import type { UpstreamRequestContext } from "../../../src/wire/upstream-adapter.ts";
import { assemble, decodeAll, splitSse, structureErrors } from "./sse-helpers.ts";

const model = DEFAULT_CONFIG.models["sim-smart"]!;
const ctx: UpstreamRequestContext = { upstreamModelId: model.upstreamId, model };

const weather = {
  kind: "function" as const,
  name: "get_weather",
  description: "Weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const time = { kind: "function" as const, name: "get_time", inputSchema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } };

const base = (text: string, stream: boolean): CanonicalRequest => ({
  system: [{ type: "text", text: "You are terse." }],
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [weather, time],
  sampling: {},
  stop: [],
  stream,
  extra: {},
});

describe("responses adapter against the simulated upstream", () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ record: true });
  }, 30_000);
  afterAll(async () => {
    await sim.stop();
  }, 30_000);

  async function post(request: CanonicalRequest): Promise<Response> {
    const { value: body } = responsesAdapter.encodeRequest(request, ctx);
    setResponsesEffort(body, "medium", model);
    return fetch(`${sim.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  }

  test("non-stream: reasoning, text and parallel calls decode into canonical parts", async () => {
    const res = await post(base("Weather and time [sim tool=get_weather,get_time]", false));
    expect(res.status).toBe(200);
    const { value, warnings } = responsesAdapter.decodeResponse(await res.json());
    expect(warnings).toEqual([]);
    expect(value.model).toBe("sim-smart");
    expect(value.content.map((part) => part.type)).toEqual(["thinking", "text", "tool_call", "tool_call"]);
    const thinking = value.content[0];
    if (thinking?.type !== "thinking") throw new Error("expected thinking");
    expect(thinking.text).not.toBe("");
    expect(unpackResponsesReasoning(thinking.signature)?.encryptedContent).toBeString();
    expect(value.content.filter((part) => part.type === "tool_call").map((part) => part.name)).toEqual(["get_weather", "get_time"]);
    expect(value.stopReason.unified).toBe("tool_use");
    expect(value.usage.reasoningTokens).toBe(32);
    const sent = sim.received[sim.received.length - 1]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: "sim-smart", instructions: "You are terse.", store: false, include: ["reasoning.encrypted_content"] });
    expect(sent.reasoning).toEqual({ summary: "auto", effort: "medium" });
  });

  test("stream: the same answer as canonical events, then a follow-up turn with the reasoning and tool results", async () => {
    const res = await post(base("Weather please [sim tool=get_weather]", true));
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events: StreamEvent[] = decodeAll(splitSse(await res.text()));
    expect(structureErrors(events)).toEqual([]);
    const { blocks, last } = assemble(events);
    expect(blocks.map((block) => block.kind)).toEqual(["thinking", "text", "tool_call"]);
    expect(last).toMatchObject({ type: "finish", stopReason: { unified: "tool_use" } });

    const call = blocks[2]!;
    const followUp: CanonicalRequest = {
      ...base("Weather please", true),
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather please" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: blocks[0]!.body!, signature: blocks[0]!.signature! },
            { type: "text", text: blocks[1]!.body! },
            { type: "tool_call", id: call.id!, name: call.name!, arguments: call.body! },
          ],
        },
        { role: "user", content: [{ type: "tool_result", callId: call.id!, content: [{ type: "text", text: "Sunny, 21C" }], isError: false }] },
      ],
    };
    const second = await post(followUp);
    const secondEvents = decodeAll(splitSse(await second.text()));
    expect(assemble(secondEvents).blocks.find((block) => block.kind === "text")?.body).toStartWith("Tool result received: Sunny, 21C");
    const sent = sim.received[sim.received.length - 1]!.body as { input: Record<string, unknown>[] };
    expect(sent.input.map((item) => item.type)).toEqual(["message", "reasoning", "message", "function_call", "function_call_output"]);
    expect(sent.input[1]).toMatchObject({ id: unpackResponsesReasoning(blocks[0]!.signature)!.id });
    expect(sent.input[1]!.encrypted_content).toBeString();
  });

  test("an upstream HTTP-200 stream cut by a fault decodes to an error", async () => {
    const { value: body } = responsesAdapter.encodeRequest(base("hello", true), ctx);
    const res = await fetch(`${sim.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sim-fault": "cut=4" },
      body: JSON.stringify(body),
    });
    const events = decodeAll(splitSse(await res.text().catch(() => "")));
    expect(events[events.length - 1]?.type).toBe("error");
  });
});
