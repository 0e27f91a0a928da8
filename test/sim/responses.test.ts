import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { clientsFor, parseSse, postJson, timeTool, weatherTool } from "./sim-fixture.ts";

let sim: SimServer;
let openai: OpenAI;

beforeAll(async () => {
  sim = await startSim();
  openai = clientsFor(sim).openai;
});
afterAll(() => sim.stop());

const MODEL = "gpt-sim-r";
const tools = [weatherTool, timeTool].map((t) => ({
  type: "function" as const,
  name: t.name,
  description: t.description,
  parameters: t.input_schema,
  strict: false,
}));

describe("Responses API", () => {
  test("create and stream().finalResponse() agree; all required fields present", async () => {
    const params = { model: MODEL, input: "Describe the build pipeline [sim words=15]", instructions: "Be brief", store: false };
    const response = await openai.responses.create(params);
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.model).toBe(MODEL);
    expect(response.id).toMatch(/^resp_/);
    for (const key of ["id", "object", "created_at", "error", "incomplete_details", "instructions", "model", "tools", "output", "parallel_tool_calls", "metadata", "tool_choice", "temperature", "top_p"]) {
      expect(Object.keys(response)).toContain(key);
    }
    expect(response.instructions).toBe("Be brief");
    expect(response).toMatchObject({ store: false });
    expect(response.output_text.startsWith(`Simulated reply from ${MODEL}: Describe the build pipeline`)).toBe(true);
    expect(response.output_text.split(" ")).toHaveLength(15);
    expect(response.usage?.output_tokens).toBe(15);

    const final = await openai.responses.stream(params).finalResponse();
    expect(final.output_text).toBe(response.output_text);
    expect(final.id).toBe(response.id);
    expect(final.usage).toEqual(response.usage as never);
  });

  test("stream lifecycle: sequence numbers from 0, created → in_progress → items → completed", async () => {
    const res = await postJson(sim, "/v1/responses", { model: MODEL, stream: true, input: "hi [sim words=7]" });
    const frames = parseSse(res.text);
    const events = frames.map((f) => ({ name: f.event, data: JSON.parse(f.data) }));
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    for (const e of events) expect(e.data.type).toBe(e.name);
    expect(events.map((e) => e.name)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[0]?.data.response).toMatchObject({ status: "in_progress", output: [], usage: null });
    expect(events.at(-1)?.data.response.usage.output_tokens).toBe(7);
  });

  test("function call, then function_call_output follow-up", async () => {
    const stream = openai.responses.stream({ model: MODEL, tools, input: "please run get_time now" });
    const argDeltas: string[] = [];
    stream.on("response.function_call_arguments.delta", (e) => argDeltas.push(e.delta));
    const response = await stream.finalResponse();
    expect(argDeltas.length).toBeGreaterThan(1);
    const call = response.output.find((item) => item.type === "function_call");
    if (call?.type !== "function_call") throw new Error("expected a function_call item");
    expect(call.name).toBe("get_time");
    expect(call.id).toMatch(/^fc_/);
    expect(call.call_id).toMatch(/^call_/);
    expect(JSON.parse(call.arguments)).toEqual({ zone: "sim_zone", verbose: true });

    const follow = await openai.responses.create({
      model: MODEL,
      tools,
      input: [
        { role: "user", content: "please run get_time now" },
        { type: "function_call", id: call.id, call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: "function_call_output", call_id: call.call_id, output: "12:00 UTC" },
      ],
    });
    expect(follow.status).toBe("completed");
    expect(follow.output.some((item) => item.type === "function_call")).toBe(false);
    expect(follow.output_text).toBe("Tool result received: 12:00 UTC");
  });

  test("parallel calls by directive and a forced named call", async () => {
    const parallel = await openai.responses.create({ model: MODEL, tools, input: "[sim tool=get_weather,get_time]" });
    const calls = parallel.output.filter((item) => item.type === "function_call");
    expect(calls.map((c) => (c.type === "function_call" ? c.name : ""))).toEqual(["get_weather", "get_time"]);
    expect(new Set(calls.map((c) => (c.type === "function_call" ? c.call_id : ""))).size).toBe(2);
    const forced = await openai.responses.create({ model: MODEL, tools, tool_choice: { type: "function", name: "get_weather" }, input: "x" });
    const forcedCall = forced.output.find((item) => item.type === "function_call");
    expect(forcedCall?.type === "function_call" && JSON.parse(forcedCall.arguments)).toEqual({ city: "sim_city", days: 1, metric: true });
  });

  test("reasoning item first, with summary events and encrypted content when asked", async () => {
    const stream = openai.responses.stream({
      model: MODEL,
      reasoning: { effort: "low", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      input: "Why is the sky blue",
    });
    const summaryDeltas: string[] = [];
    stream.on("response.reasoning_summary_text.delta", (e) => summaryDeltas.push(e.delta));
    const response = await stream.finalResponse();
    const reasoning = response.output[0];
    if (reasoning?.type !== "reasoning") throw new Error("expected reasoning first");
    expect(reasoning.id).toMatch(/^rs_/);
    expect(reasoning.summary).toEqual([{ type: "summary_text", text: 'Considering the request about "Why is the sky blue" step by step before answering.' }]);
    expect(summaryDeltas.join("")).toBe(reasoning.summary[0]?.text ?? "");
    expect(typeof reasoning.encrypted_content).toBe("string");
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(16);
    expect(response.output[1]?.type).toBe("message");

    const plain = await openai.responses.create({ model: MODEL, reasoning: { effort: "medium" }, input: "x" });
    expect(plain.output[0]).toEqual({ id: expect.stringMatching(/^rs_/), type: "reasoning", summary: [] } as never);
    expect(plain.usage?.output_tokens_details.reasoning_tokens).toBe(32);
    const off = await openai.responses.create({ model: MODEL, reasoning: { effort: "none" }, input: "x" });
    expect(off.output.some((item) => item.type === "reasoning")).toBe(false);
  });

  test("usage: input includes cached tokens on a two-turn conversation; input_tokens endpoint agrees", async () => {
    const input: OpenAI.Responses.ResponseInput = [
      { role: "developer", content: "d".repeat(16) },
      { role: "user", content: "u".repeat(40) },
      { role: "assistant", content: "a".repeat(40) },
      { role: "user", content: [{ type: "input_text", text: "v".repeat(20) }] },
    ];
    const response = await openai.responses.create({ model: MODEL, input });
    expect(response.usage?.input_tokens).toBe(29);
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(24);
    const counted = await openai.responses.inputTokens.count({ model: MODEL, input });
    expect(counted).toEqual({ object: "response.input_tokens", input_tokens: 29 });
  });

  test("max_output_tokens → status incomplete, response.incomplete terminal event", async () => {
    const params = { model: MODEL, max_output_tokens: 16, input: "essay [sim words=40]" };
    const response = await openai.responses.create(params);
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.output_text.split(" ")).toHaveLength(16);
    expect(response.usage?.output_tokens).toBe(16);
    const raw = await postJson(sim, "/v1/responses", { ...params, stream: true });
    expect(parseSse(raw.text).at(-1)?.event).toBe("response.incomplete");
    const final = await openai.responses.stream(params).finalResponse();
    expect(final.status).toBe("incomplete");
    const tooSmall = await postJson(sim, "/v1/responses", { model: MODEL, max_output_tokens: 5, input: "x" });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.json).toMatchObject({ error: { param: "max_output_tokens", code: "integer_below_min_value" } });
  });

  test("validation: missing input → 400", async () => {
    const res = await postJson(sim, "/v1/responses", { model: MODEL });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: { message: "Missing required parameter: 'input'.", type: "invalid_request_error", param: "input", code: "missing_required_parameter" },
    });
  });
});
