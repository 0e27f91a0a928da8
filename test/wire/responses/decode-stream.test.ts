import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { unpackResponsesReasoning } from "../../../src/wire/pack-reasoning.ts";
import { responsesStreamDecoder } from "../../../src/wire/responses/decode-stream.ts";
import { startSim, type SimServer } from "../../../src/sim/start-sim.ts";
import { assemble, decodeAll, splitSse, structureErrors } from "./sse-helpers.ts";

const fixture = async (name: string): Promise<string> => Bun.file(`${import.meta.dir}/../../fixtures/responses/${name}.sse`).text();

describe("responses stream decoder on recorded sim streams", () => {
  test("text", async () => {
    const events = decodeAll(splitSse(await fixture("text")));
    expect(structureErrors(events)).toEqual([]);
    expect(events[0]).toMatchObject({ type: "start", model: "sim-fast" });
    expect((events[0] as { id: string }).id).toStartWith("resp_");
    const { blocks, last } = assemble(events);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.kind).toBe("text");
    expect(blocks[0]!.body).toStartWith("Simulated reply from sim-fast: Say hello to Routelane");
    expect(events.filter((event) => event.type === "text_delta").length).toBeGreaterThan(1);
    expect(last).toMatchObject({ type: "finish", stopReason: { unified: "end_turn", raw: "completed" } });
  });

  test("parallel tool calls: one block per call, arguments forwarded as fragments", async () => {
    const events = decodeAll(splitSse(await fixture("parallel-tools")));
    expect(structureErrors(events)).toEqual([]);
    const { blocks, last } = assemble(events);
    expect(blocks.map((block) => block.kind)).toEqual(["text", "tool_call", "tool_call"]);
    expect(blocks[1]).toMatchObject({ name: "get_weather", id: "call_bd087f39395b65960" });
    expect(JSON.parse(blocks[1]!.body!)).toEqual({ city: "sim_city" });
    expect(blocks[2]).toMatchObject({ name: "get_time" });
    expect(JSON.parse(blocks[2]!.body!)).toEqual({ zone: "sim_zone" });
    const fragments = events.filter((event) => event.type === "tool_args_delta" && event.index === 1);
    expect(fragments.length).toBeGreaterThan(1);
    expect(last).toMatchObject({ type: "finish", stopReason: { unified: "tool_use" } });
  });

  test("thinking: the reasoning item becomes a thinking block signed rlr1 with its id and encrypted content", async () => {
    const text = await fixture("thinking");
    const events = decodeAll(splitSse(text));
    expect(structureErrors(events)).toEqual([]);
    const { blocks, last } = assemble(events);
    expect(blocks.map((block) => block.kind)).toEqual(["thinking", "text"]);
    expect(blocks[0]!.body).toStartWith("Considering the request about");
    const ref = unpackResponsesReasoning(blocks[0]!.signature);
    expect(ref?.id).toStartWith("rs_");
    expect(ref?.encryptedContent).toBe(/"encrypted_content":"([^"]+)"/.exec(text)![1]!);
    const finish = last as Extract<StreamEvent, { type: "finish" }>;
    expect(finish.usage.reasoningTokens).toBe(48);
    expect(finish.usage.outputTokens).toBeGreaterThan(48);
  });

  test("usage: cached tokens stay inside inputTokens", async () => {
    const events = decodeAll(splitSse(await fixture("usage")));
    expect(events[events.length - 1]).toEqual({
      type: "finish",
      stopReason: { unified: "end_turn", raw: "completed" },
      usage: { inputTokens: 21, outputTokens: 35, cacheReadTokens: 13, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
  });

  test("response.incomplete after max_output_tokens → max_tokens", async () => {
    const events = decodeAll(splitSse(await fixture("incomplete")));
    expect(structureErrors(events)).toEqual([]);
    expect(events[events.length - 1]).toMatchObject({ type: "finish", stopReason: { unified: "max_tokens", raw: "incomplete:max_output_tokens" } });
  });
});

describe("responses stream decoder failures", () => {
  const created = { event: "response.created", data: JSON.stringify({ type: "response.created", sequence_number: 0, response: { id: "resp_1", model: "m" } }) };
  const cases: { name: string; events: { event: string | undefined; data: string }[]; status: number; type: string; message?: string }[] = [
    { name: "malformed JSON", events: [created, { event: "response.output_item.added", data: '{"type": broken' }], status: 502, type: "upstream_error" },
    { name: "data without a type", events: [created, { event: undefined, data: '{"foo":1}' }], status: 502, type: "upstream_error" },
    {
      name: "nested error event (live API shape)",
      events: [created, { event: "error", data: JSON.stringify({ type: "error", sequence_number: 1, error: { type: "tokens", code: "rate_limit_exceeded", message: "slow down" } }) }],
      status: 429,
      type: "rate_limit_error",
      message: "slow down",
    },
    {
      name: "flat error event (spec shape)",
      events: [created, { event: "error", data: JSON.stringify({ type: "error", sequence_number: 1, code: "server_error", message: "boom", param: null }) }],
      status: 502,
      type: "upstream_error",
      message: "boom",
    },
    {
      name: "response.failed",
      events: [created, { event: "response.failed", data: JSON.stringify({ type: "response.failed", response: { id: "resp_1", status: "failed", error: { code: "server_error", message: "failed upstream" } } }) }],
      status: 502,
      type: "upstream_error",
      message: "failed upstream",
    },
    { name: "cut before response.completed", events: [created], status: 502, type: "upstream_error", message: "upstream Responses stream ended before response.completed" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const events = decodeAll(c.events);
      const last = events[events.length - 1];
      expect(last?.type).toBe("error");
      expect(events.filter((event) => event.type === "error" || event.type === "finish")).toHaveLength(1);
      expect(last).toMatchObject({ error: { status: c.status, type: c.type, ...(c.message ? { message: c.message } : {}) } });
    });
  }

  test("nothing is emitted after the terminal event, and end() owes nothing after a clean finish", async () => {
    const events = splitSse(await fixture("text"));
    let state = responsesStreamDecoder.initial();
    for (const event of events) state = responsesStreamDecoder.step(state, event)[0];
    expect(responsesStreamDecoder.step(state, events[2]!)[1]).toEqual([]);
    expect(responsesStreamDecoder.end(state)).toEqual([]);
  });

  test("a stream cut mid-way (the sim's cut fault) ends in an error, not a finish", async () => {
    const events = splitSse(await fixture("parallel-tools")).slice(0, 12);
    const decoded = decodeAll(events);
    expect(decoded[decoded.length - 1]?.type).toBe("error");
    expect(decoded.some((event) => event.type === "finish")).toBe(false);
  });

  test("items without streamed deltas are filled from their done events", () => {
    const data = (value: Record<string, unknown>) => ({ event: String(value.type), data: JSON.stringify(value) });
    const events = decodeAll([
      data({ type: "response.created", response: { id: "resp_x", model: "m" } }),
      data({ type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } }),
      data({ type: "response.output_item.done", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "a" }, { type: "summary_text", text: "b" }] } }),
      data({ type: "response.output_item.added", output_index: 1, item: { type: "message", id: "m1", content: [] } }),
      data({ type: "response.output_item.done", output_index: 1, item: { type: "message", id: "m1", content: [{ type: "refusal", refusal: "no" }] } }),
      data({ type: "response.output_item.added", output_index: 2, item: { type: "function_call", id: "fc", call_id: "c1", name: "f", arguments: "" } }),
      data({ type: "response.function_call_arguments.done", output_index: 2, arguments: "{\"a\":1}" }),
      data({ type: "response.output_item.done", output_index: 2, item: { type: "function_call", id: "fc", call_id: "c1", name: "f", arguments: "{\"a\":1}" } }),
      data({ type: "response.completed", response: { id: "resp_x", status: "completed", usage: null } }),
    ]);
    expect(structureErrors(events)).toEqual([]);
    const { blocks, last } = assemble(events);
    expect(blocks.map((block) => [block.kind, block.body])).toEqual([
      ["thinking", "a\n\nb"],
      ["text", "no"],
      ["tool_call", "{\"a\":1}"],
    ]);
    expect(last).toMatchObject({ type: "finish", stopReason: { unified: "refusal" } });
  });
});

describe("the sim still produces decodable Responses streams", () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim();
  }, 30_000);
  afterAll(async () => {
    await sim.stop();
  }, 30_000);

  test("live stream with reasoning and parallel tool calls decodes cleanly", async () => {
    const res = await fetch(`${sim.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "sim-smart",
        stream: true,
        input: "Both please [sim tool=get_weather,get_time]",
        reasoning: { effort: "low", summary: "auto" },
        include: ["reasoning.encrypted_content"],
        tools: [
          { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
          { type: "function", name: "get_time", parameters: { type: "object", properties: { zone: { type: "string" } } } },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const events = decodeAll(splitSse(await res.text()));
    expect(structureErrors(events)).toEqual([]);
    expect(assemble(events).blocks.map((block) => block.kind)).toEqual(["thinking", "text", "tool_call", "tool_call"]);
    expect(events[events.length - 1]).toMatchObject({ type: "finish", stopReason: { unified: "tool_use" } });
  });

  test("live stream cut by the sim's fault header ends in an error", async () => {
    const res = await fetch(`${sim.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sim-fault": "cut=5" },
      body: JSON.stringify({ model: "sim-fast", stream: true, input: "hello" }),
    });
    const text = await res.text().catch(() => "");
    const events = decodeAll(splitSse(text));
    expect(events[events.length - 1]?.type).toBe("error");
  });
});

describe("responses stream decoder: a part's final text against its deltas", () => {
  const ev = (data: Record<string, unknown>) => ({ event: String(data.type), data: JSON.stringify(data) });
  const stream = (deltas: string[], done: string) => [
    ev({ type: "response.created", response: { id: "resp_1", model: "m" } }),
    ev({ type: "response.output_item.added", output_index: 0, item: { type: "message", id: "msg_1", content: [] } }),
    ev({ type: "response.content_part.added", output_index: 0, content_index: 0, part: { type: "output_text", text: "" } }),
    ...deltas.map((delta) => ev({ type: "response.output_text.delta", output_index: 0, content_index: 0, delta })),
    ev({ type: "response.output_text.done", output_index: 0, content_index: 0, text: done }),
    ev({ type: "response.completed", response: { id: "resp_1", status: "completed", usage: { input_tokens: 1, output_tokens: 2 } } }),
  ];
  const text = (events: StreamEvent[]) => events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");

  test("a final text that goes on from the deltas sends its rest", () => {
    expect(text(decodeAll(stream(["Here are", " a few"], "Here are a few headlines.")))).toBe("Here are a few headlines.");
  });

  test("a final text that contradicts the deltas leaves what was sent", () => {
    expect(text(decodeAll(stream(["The command ran successfully."], "The command ran successfully in the container.")))).toBe("The command ran successfully.");
  });
});
