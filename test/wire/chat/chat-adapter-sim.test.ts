import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { DEFAULT_CONFIG } from "../../../src/config/default-config.ts";
import { startSim, type SimServer } from "../../../src/sim/start-sim.ts";
import { chatAdapter } from "../../../src/wire/chat/upstream-side.ts";
import { setChatEffort } from "../../../src/wire/chat/set-effort.ts";
import { decodeSseText } from "./decode-sse-text.ts";

const model = DEFAULT_CONFIG.models["sim-normal"]!;
const ctx = { upstreamModelId: "sim-normal", model };

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ record: true });
}, 30_000);
afterAll(() => sim.stop(), 30_000);

/** A request as a Messages client (Claude Code-like) would arrive: system blocks, a mid-history system message, tools, thinking. */
const weather = { kind: "function" as const, name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const time = { kind: "function" as const, name: "get_time", inputSchema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } };
const request = (text: string, over: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  system: [{ type: "text", text: "You are helpful.", cacheControl: { type: "ephemeral" } }],
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [weather, time],
  toolChoice: { type: "auto" },
  maxOutputTokens: 1000,
  sampling: {},
  stop: [],
  stream: false,
  extra: { context_management: { edits: [] } },
  ...over,
});

async function call(req: CanonicalRequest): Promise<Response> {
  const { value } = chatAdapter.encodeRequest(req, ctx);
  setChatEffort(value, "medium", model);
  return fetch(`${sim.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(value) });
}

const text = (events: StreamEvent[]) => events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");

describe("Chat adapter against the simulated upstream", () => {
  test("non-stream text answer with reasoning tokens", async () => {
    const res = await call(request("Say hello [sim words=6]"));
    expect(res.status).toBe(200);
    const { value } = chatAdapter.decodeResponse(await res.json());
    expect(value.model).toBe("sim-normal");
    expect(value.content).toEqual([{ type: "text", text: expect.stringContaining("Simulated reply from sim-normal: Say hello") }]);
    expect(value.stopReason).toEqual({ unified: "end_turn", raw: "stop" });
    expect(value.usage.reasoningTokens).toBe(32);
    expect(value.usage.outputTokens).toBe(6 + 32);
  });

  test("streamed parallel tool calls decode to two complete calls, usage asked for though the client did not", async () => {
    const res = await call(request("Weather and time [sim tool=get_weather,get_time]", { stream: true, includeUsage: false }));
    const sent = sim.received.at(-1)?.body as Record<string, unknown>;
    expect(sent.stream_options).toEqual({ include_usage: true });
    const events = decodeSseText(chatAdapter.stream, await res.text());
    const calls = events.flatMap((e) => (e.type === "block_start" && e.block.type === "tool_call" ? [{ index: e.index, ...e.block }] : []));
    expect(calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
    for (const c of calls) {
      const args = events.map((e) => (e.type === "tool_args_delta" && e.index === c.index ? e.fragment : "")).join("");
      expect(JSON.parse(args)).toEqual(c.name === "get_weather" ? { city: "sim_city" } : { zone: "sim_zone" });
    }
    const finish = events.at(-1);
    expect(finish).toMatchObject({ type: "finish", stopReason: { unified: "tool_use" } });
    expect(finish?.type === "finish" && finish.usage.inputTokens).toBeGreaterThan(0);
  });

  test("a tool-result turn (results from a Messages-style history) gets the sim's tool-result answer, stream and not", async () => {
    const followUp = request("", {
      messages: [
        { role: "user", content: [{ type: "text", text: "weather in Paris?" }] },
        { role: "system", content: [{ type: "text", text: "Skills: none." }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "look it up", signature: "c2ln" },
            { type: "tool_call", id: "toolu_01", name: "get_weather", arguments: '{"city":"Paris"}' },
          ],
        },
        { role: "user", content: [{ type: "tool_result", callId: "toolu_01", content: [{ type: "text", text: "Sunny and 21C" }], isError: false }] },
      ],
    });
    const plain = chatAdapter.decodeResponse(await (await call(followUp)).json()).value;
    expect(plain.content).toEqual([{ type: "text", text: "Tool result received: Sunny and 21C" }]);
    expect(plain.usage.cacheReadTokens).toBeGreaterThan(0);
    const streamed = decodeSseText(chatAdapter.stream, await (await call({ ...followUp, stream: true })).text());
    expect(text(streamed)).toBe("Tool result received: Sunny and 21C");
    expect(streamed.at(-1)).toMatchObject({ type: "finish", usage: { cacheReadTokens: plain.usage.cacheReadTokens } });
  });

  test("output cap: length → max_tokens", async () => {
    const res = await call(request("Write a long story [sim words=30]", { maxOutputTokens: 5, stream: true }));
    const events = decodeSseText(chatAdapter.stream, await res.text());
    expect(events.at(-1)).toMatchObject({ type: "finish", stopReason: { unified: "max_tokens", raw: "length" } });
  });

  test("faults: an in-stream cut and a malformed event become canonical errors", async () => {
    for (const directive of ["cut=3", "malformed=2"]) {
      const res = await call(request(`hi [sim words=20 ${directive}]`, { stream: true }));
      let body = "";
      const reader = res.body!.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          body += new TextDecoder().decode(value);
        }
      } catch {
        // connection reset by the cut fault
      }
      const events = decodeSseText(chatAdapter.stream, body);
      expect(events.at(-1)?.type).toBe("error");
      expect(events.some((e) => e.type === "finish")).toBe(false);
    }
  });
});
