import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ContentPart, OutputPart } from "../../../src/canonical/content-part.ts";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { startSim, type SimServer } from "../../../src/sim/start-sim.ts";
import { messagesAdapter } from "../../../src/wire/messages/upstream-side.ts";
import { setMessagesEffort } from "../../../src/wire/messages/set-effort.ts";
import { decodeAll } from "./sse-helpers.ts";
import { CTX, MODEL } from "./model-context.ts";
import { loadRequests, recordStream } from "./record-fixtures.ts";

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ record: true });
}, 30_000);
afterAll(() => sim.stop(), 30_000);

const WEATHER = { kind: "function" as const, name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const TIME = { kind: "function" as const, name: "get_time", description: "Time", inputSchema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } };

const request = (text: string, over: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  system: [{ type: "text", text: "Be brief." }],
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [],
  sampling: {},
  stop: [],
  stream: false,
  extra: {},
  maxOutputTokens: 2000,
  ...over,
});

/** Encodes, lets the effort setter run as the pipeline does, and posts to the sim. */
async function post(canonical: CanonicalRequest, effort: "off" | "medium" = "off"): Promise<Response> {
  const { value: body } = messagesAdapter.encodeRequest(canonical, CTX);
  setMessagesEffort(body, effort, MODEL);
  return fetch(`${sim.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

async function ask(canonical: CanonicalRequest, effort: "off" | "medium" = "off"): Promise<CanonicalResponse> {
  const res = await post(canonical, effort);
  expect(res.status).toBe(200);
  return messagesAdapter.decodeResponse(await res.json()).value;
}

async function askStream(canonical: CanonicalRequest, effort: "off" | "medium" = "off"): Promise<StreamEvent[]> {
  const res = await post({ ...canonical, stream: true }, effort);
  expect(res.status).toBe(200);
  return decodeAll(messagesAdapter.stream, await readUntilCut(res));
}

/** The body as far as it arrived: a reset connection ends it like the pipeline's reader would see it end. */
async function readUntilCut(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return text;
  }
}

/** Folds a canonical stream into the answer's parts, as the pipeline's aggregator would. */
function fold(events: StreamEvent[]): OutputPart[] {
  const parts: Record<number, { type: string; text: string; signature?: string; id?: string; name?: string }> = {};
  for (const e of events) {
    if (e.type === "block_start") parts[e.index] = { type: e.block.type, text: "", ...(e.block.type === "tool_call" ? { id: e.block.id, name: e.block.name } : {}) };
    else if (e.type === "text_delta" || e.type === "thinking_delta") parts[e.index]!.text += e.text;
    else if (e.type === "tool_args_delta") parts[e.index]!.text += e.fragment;
    else if (e.type === "signature_delta") parts[e.index]!.signature = e.signature;
  }
  return Object.values(parts).map((p): OutputPart =>
    p.type === "tool_call"
      ? { type: "tool_call", id: p.id ?? "", name: p.name ?? "", arguments: p.text }
      : p.type === "thinking"
        ? { type: "thinking", text: p.text, ...(p.signature !== undefined ? { signature: p.signature } : {}) }
        : { type: "text", text: p.text },
  );
}

describe("messagesAdapter against the simulated upstream", () => {
  test("text, non-stream and stream agree", async () => {
    const canonical = request("Hello there [sim words=9]");
    const answer = await ask(canonical);
    expect(answer.content).toHaveLength(1);
    expect(answer.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("Simulated reply from sim-normal") });
    expect(answer.stopReason).toEqual({ unified: "end_turn", raw: "end_turn" });
    expect(answer.usage.outputTokens).toBe(9);
    const events = await askStream(canonical);
    expect(fold(events)).toEqual(answer.content as OutputPart[]);
    expect(events.at(-1)).toEqual({ type: "finish", stopReason: answer.stopReason, usage: answer.usage });
  });

  test("parallel tool calls, then their results (one an error) in the next turn", async () => {
    const canonical = request("Weather and time please [sim tool=get_weather,get_time]", { tools: [WEATHER, TIME] });
    const answer = await ask(canonical);
    const calls = answer.content.filter((p) => p.type === "tool_call");
    expect(calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ city: "sim_city" }, { zone: "sim_zone" }]);
    expect(answer.stopReason.unified).toBe("tool_use");
    expect(fold(await askStream(canonical))).toEqual(answer.content as OutputPart[]);

    const results: ContentPart[] = calls.map((call, i) => ({ type: "tool_result", callId: call.id, isError: i === 1, content: [{ type: "text", text: i === 0 ? "Sunny and warm" : "clock broken" }] }));
    const followUp = await ask({ ...canonical, messages: [...canonical.messages, { role: "assistant", content: answer.content }, { role: "user", content: results }] });
    expect(followUp.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("Tool result received") });
    const sent = sim.received.at(-1)?.body as { messages: { content: { type: string; is_error?: boolean }[] }[] };
    expect(sent.messages[2]?.content.map((b) => [b.type, b.is_error ?? false])).toEqual([["tool_result", false], ["tool_result", true]]);
  });

  test("thinking with its signature goes back to the same model unchanged (the sim verifies it)", async () => {
    const canonical = request("Think about primes [sim words=6]");
    const events = await askStream(canonical, "medium");
    const parts = fold(events);
    // Plain checks: bun's toMatchObject writes asymmetric matchers into the object it inspects.
    const thinking = parts[0];
    expect(thinking?.type).toBe("thinking");
    expect(thinking?.type === "thinking" && thinking.signature?.length).toBeGreaterThan(10);
    const finish = events.at(-1);
    expect(finish?.type === "finish" && finish.usage.reasoningTokens).toBeGreaterThan(0);

    const again = await post({ ...canonical, messages: [...canonical.messages, { role: "assistant", content: parts }, { role: "user", content: [{ type: "text", text: "More" }] }] }, "medium");
    expect(again.status).toBe(200);
    const forged = await post(
      { ...canonical, messages: [...canonical.messages, { role: "assistant", content: [{ type: "thinking", text: "edited", signature: "AAAA" }, { type: "text", text: "x" }] }, { role: "user", content: [{ type: "text", text: "More" }] }] },
      "medium",
    );
    expect(forged.status).toBe(400);
  });

  test("stop sequences and max tokens reach the upstream and come back as stop reasons", async () => {
    const cut = await ask(request("Long answer please [sim words=30]", { maxOutputTokens: 5 }));
    expect(cut.stopReason).toEqual({ unified: "max_tokens", raw: "max_tokens" });
    // Every sim answer starts "Simulated reply from <model>:".
    const stopped = await ask(request("Reply [sim words=12]", { stop: ["from sim-normal"] }));
    expect(stopped.stopReason).toEqual({ unified: "stop_sequence", raw: "stop_sequence", stopSequence: "from sim-normal" });
    expect(stopped.content).toEqual([{ type: "text", text: "Simulated reply " }]);
  });

  test("a stream cut by the upstream ends in an error event, never a clean finish", async () => {
    const events = await askStream(request("Hello [sim cut=4]"));
    expect(events.at(-1)).toMatchObject({ type: "error", error: { status: 502 } });
    expect(events.some((e) => e.type === "finish")).toBe(false);
  });

  test("a malformed upstream event becomes an error event", async () => {
    const events = await askStream(request("Hello [sim malformed=2]"));
    expect(events.at(-1)).toMatchObject({ type: "error", error: { status: 502, type: "upstream_error" } });
  });
});

describe("recorded fixtures stay true to the simulated upstream", () => {
  test("each fixture request still gives a stream that decodes to the same events", async () => {
    const requests = await loadRequests();
    expect(Object.keys(requests).length).toBeGreaterThanOrEqual(5);
    for (const [name, body] of Object.entries(requests)) {
      const live = decodeAll(messagesAdapter.stream, await recordStream(sim.url, body));
      const recorded = decodeAll(messagesAdapter.stream, await Bun.file(`${import.meta.dir}/../../fixtures/messages/${name}.sse`).text());
      expect(live.at(-1)?.type).toBe("finish");
      expect(live).toEqual(recorded);
    }
  });
});
