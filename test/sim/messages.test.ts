import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type Anthropic from "@anthropic-ai/sdk";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { signThinking } from "../../src/sim/sign-thinking.ts";
import { clientsFor, parseSse, postJson, timeTool, weatherTool } from "./sim-fixture.ts";

let sim: SimServer;
let anthropic: Anthropic;

beforeAll(async () => {
  sim = await startSim({ record: true });
  anthropic = clientsFor(sim).anthropic;
});
afterAll(() => sim.stop());

const MODEL = "claude-sim-a";

describe("Messages API", () => {
  test("text answer echoes the model and the prompt, same in stream and non-stream", async () => {
    const params = { model: MODEL, max_tokens: 500, messages: [{ role: "user" as const, content: "Explain tail calls briefly please [sim words=12]" }] };
    const message = await anthropic.messages.create(params);
    expect(message.model).toBe(MODEL);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content).toHaveLength(1);
    const block = message.content[0];
    expect(block?.type).toBe("text");
    const text = block?.type === "text" ? block.text : "";
    expect(text.startsWith(`Simulated reply from ${MODEL}: Explain tail calls briefly please`)).toBe(true);
    expect(text.split(" ")).toHaveLength(12);
    expect(text).not.toContain("[sim");
    expect(message.usage.output_tokens).toBe(12);

    const streamed = await anthropic.messages.stream(params).finalMessage();
    expect(streamed.content).toEqual(message.content.map((b) => (b.type === "text" ? { type: "text", text: b.text } : b)) as never);
    expect(streamed.usage.output_tokens).toBe(12);
    expect(streamed.stop_reason).toBe("end_turn");
  });

  test("default length is 20–40 words and deterministic", async () => {
    const params = { model: MODEL, max_tokens: 500, messages: [{ role: "user" as const, content: "Tell me something" }] };
    const a = await anthropic.messages.create(params);
    const b = await anthropic.messages.create(params);
    expect(a).toEqual(b);
    const text = a.content[0]?.type === "text" ? a.content[0].text : "";
    const words = text.split(" ").length;
    expect(words).toBeGreaterThanOrEqual(20);
    expect(words).toBeLessThanOrEqual(40);
  });

  test("stream frames: message_start, one ping after the first block start, contiguous indices, several deltas", async () => {
    const res = await postJson(sim, "/v1/messages", {
      model: MODEL,
      max_tokens: 500,
      stream: true,
      messages: [{ role: "user", content: "stream this [sim words=20]" }],
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.text.endsWith("\n\n")).toBe(true);
    const events = parseSse(res.text);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      ...Array(7).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    const start = JSON.parse(events[0]?.data ?? "{}");
    expect(start.message.usage.output_tokens).toBe(1);
    const delta = JSON.parse(events.at(-2)?.data ?? "{}");
    expect(delta.usage.output_tokens).toBe(20);
    expect(delta.delta.stop_reason).toBe("end_turn");
  });

  test("tool call from a whole-word tool name, then the tool-result follow-up ends the loop", async () => {
    const first = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 500,
      tools: [weatherTool, timeTool],
      messages: [{ role: "user", content: "What does get_weather say for Paris?" }],
    });
    expect(first.stop_reason).toBe("tool_use");
    const uses = first.content.filter((b) => b.type === "tool_use");
    expect(uses).toHaveLength(1);
    const use = uses[0];
    if (use?.type !== "tool_use") throw new Error("no tool_use");
    expect(use.name).toBe("get_weather");
    expect(use.id).toMatch(/^toolu_[0-9a-f]+$/);
    expect(use.input).toEqual({ city: "sim_city", days: 1, metric: true });

    const streamed = await anthropic.messages
      .stream({ model: MODEL, max_tokens: 500, tools: [weatherTool], messages: [{ role: "user", content: "What does get_weather say for Paris?" }] })
      .finalMessage();
    const streamedUse = streamed.content.find((b) => b.type === "tool_use");
    expect(streamedUse?.type === "tool_use" ? streamedUse.input : null).toEqual({ city: "sim_city", days: 1, metric: true });

    const follow = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 500,
      tools: [weatherTool, timeTool],
      messages: [
        { role: "user", content: "What does get_weather say for Paris?" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "Sunny, 24 degrees, light wind from the north-west" }] },
      ],
    });
    expect(follow.stop_reason).toBe("end_turn");
    // No `citations` key (the SDK's type lists it; the API leaves it out when there are none).
    expect(follow.content as unknown[]).toEqual([{ type: "text", text: "Tool result received: Sunny, 24 degrees, light wind from the n" }]);
  });

  test("tool_choice forces a tool; directives give parallel calls and literal args", async () => {
    const forced = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 500,
      tools: [weatherTool, timeTool],
      tool_choice: { type: "tool", name: "get_time" },
      messages: [{ role: "user", content: "hello" }],
    });
    const forcedUse = forced.content.find((b) => b.type === "tool_use");
    expect(forcedUse?.type === "tool_use" && forcedUse.name).toBe("get_time");
    expect(forcedUse?.type === "tool_use" && forcedUse.input).toEqual({ zone: "sim_zone", verbose: true });

    const parallel = await anthropic.messages
      .stream({
        model: MODEL,
        max_tokens: 500,
        tools: [weatherTool, timeTool],
        messages: [{ role: "user", content: "both please [sim tool=get_weather,get_time]" }],
      })
      .finalMessage();
    const uses = parallel.content.filter((b) => b.type === "tool_use");
    expect(uses.map((u) => (u.type === "tool_use" ? u.name : ""))).toEqual(["get_weather", "get_time"]);
    expect(new Set(uses.map((u) => (u.type === "tool_use" ? u.id : ""))).size).toBe(2);

    const literal = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 500,
      tools: [weatherTool],
      messages: [{ role: "user", content: 'weather [sim tool=get_weather args={"city":"Paris"}]' }],
    });
    const literalUse = literal.content.find((b) => b.type === "tool_use");
    expect(literalUse?.type === "tool_use" && literalUse.input).toEqual({ city: "Paris" });

    const serial = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 500,
      tools: [weatherTool, timeTool],
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      messages: [{ role: "user", content: "both please [sim tool=get_weather,get_time]" }],
    });
    expect(serial.content.filter((b) => b.type === "tool_use")).toHaveLength(1);
  });

  test("thinking: signed block first; replay accepted for the same model, 400 for another", async () => {
    const params = {
      model: MODEL,
      max_tokens: 2000,
      thinking: { type: "adaptive" as const },
      messages: [{ role: "user" as const, content: "Plan a small refactor" }],
    };
    const message = await anthropic.messages.stream(params).finalMessage();
    const thinking = message.content[0];
    if (thinking?.type !== "thinking") throw new Error("expected a thinking block first");
    expect(thinking.thinking).toContain("Plan a small refactor");
    expect(thinking.signature).toBe(signThinking(MODEL, thinking.thinking));
    expect(message.content[1]?.type).toBe("text");
    expect(message.usage.output_tokens_details?.thinking_tokens).toBe(48);

    const replay = (model: string) =>
      postJson(sim, "/v1/messages", {
        model,
        max_tokens: 2000,
        thinking: { type: "adaptive" },
        messages: [
          { role: "user", content: "Plan a small refactor" },
          { role: "assistant", content: message.content },
          { role: "user", content: "Go on" },
        ],
      });
    const same = await replay(MODEL);
    expect(same.status).toBe(200);
    const other = await replay("claude-sim-b");
    expect(other.status).toBe(400);
    expect(other.json).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: "messages.1.content.0: Invalid `signature` in `thinking` block" },
    });
    expect((other.json as { request_id: string }).request_id).toMatch(/^req_sim/);

    const redacted = await postJson(sim, "/v1/messages", {
      model: "claude-sim-b",
      max_tokens: 100,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "redacted_thinking", data: "opaque" }, { type: "text", text: "hello" }] },
        { role: "user", content: "again" },
      ],
    });
    expect(redacted.status).toBe(200);
  });

  test("thinking display omitted: empty text, valid signature, only a signature_delta in the stream", async () => {
    const body = {
      model: MODEL,
      max_tokens: 2000,
      stream: true,
      thinking: { type: "enabled", budget_tokens: 1024, display: "omitted" },
      messages: [{ role: "user", content: "Quick one" }],
    };
    const res = await postJson(sim, "/v1/messages", body);
    const deltas = parseSse(res.text)
      .filter((e) => e.event === "content_block_delta")
      .map((e) => JSON.parse(e.data).delta)
      .filter((d) => d.type === "thinking_delta" || d.type === "signature_delta");
    expect(deltas).toEqual([{ type: "signature_delta", signature: signThinking(MODEL, "") }]);
    const message = await anthropic.messages.create({ ...body, stream: false } as Anthropic.MessageCreateParamsNonStreaming);
    expect(message.content[0]).toEqual({ type: "thinking", thinking: "", signature: signThinking(MODEL, "") });
    // budget 1024 maps to low effort: 16 thinking tokens.
    expect(message.usage.output_tokens_details?.thinking_tokens).toBe(16);
  });

  test("usage on a two-turn conversation: cache read = all but the last message, cache write with cache_control", async () => {
    const system = "You are terse."; // 14 chars
    const turn1 = "a".repeat(40); // 10 tokens
    const reply = "b".repeat(40);
    const turn2 = "c".repeat(20); // 5 tokens
    const message = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 500,
      system,
      messages: [
        { role: "user", content: turn1 },
        { role: "assistant", content: reply },
        { role: "user", content: [{ type: "text", text: turn2, cache_control: { type: "ephemeral" } }] },
      ],
    });
    // prefix: ceil((14 + 40 + 40) / 4) = 24; last: ceil(20 / 4) = 5
    expect(message.usage.cache_read_input_tokens).toBe(24);
    expect(message.usage.cache_creation_input_tokens).toBe(5);
    expect(message.usage.input_tokens).toBe(0);

    const count = await anthropic.messages.countTokens({
      model: MODEL,
      system,
      messages: [
        { role: "user", content: turn1 },
        { role: "assistant", content: reply },
        { role: "user", content: turn2 },
      ],
    });
    expect(count.input_tokens).toBe(29);

    const single = await anthropic.messages.create({ model: MODEL, max_tokens: 500, messages: [{ role: "user", content: turn1 }] });
    expect(single.usage).toMatchObject({ input_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });

  test("max_tokens cuts the text and reports max_tokens", async () => {
    const params = { model: MODEL, max_tokens: 5, messages: [{ role: "user" as const, content: "Write a long essay [sim words=30]" }] };
    const message = await anthropic.messages.create(params);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage.output_tokens).toBe(5);
    expect(message.content[0]).toMatchObject({ type: "text", text: `Simulated reply from ${MODEL}: Write` });
    const streamed = await anthropic.messages.stream(params).finalMessage();
    expect(streamed.stop_reason).toBe("max_tokens");
    expect(streamed.usage.output_tokens).toBe(5);
  });

  test("stop sequence cuts before the string and is echoed", async () => {
    const params = {
      model: MODEL,
      max_tokens: 500,
      stop_sequences: ["zebra", "tail"],
      messages: [{ role: "user" as const, content: "Explain tail calls" }],
    };
    const message = await anthropic.messages.create(params);
    expect(message.stop_reason).toBe("stop_sequence");
    expect(message.stop_sequence).toBe("tail");
    expect(message.content[0]).toMatchObject({ type: "text", text: `Simulated reply from ${MODEL}: Explain ` });
    const streamed = await anthropic.messages.stream(params).finalMessage();
    expect(streamed.stop_sequence).toBe("tail");
  });

  test("validation: missing max_tokens / messages → 400 invalid_request_error", async () => {
    const noMax = await postJson(sim, "/v1/messages", { model: MODEL, messages: [{ role: "user", content: "x" }] });
    expect(noMax.status).toBe(400);
    expect(noMax.json).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: "max_tokens: Field required" } });
    const noMessages = await postJson(sim, "/v1/messages", { model: MODEL, max_tokens: 10 });
    expect(noMessages.status).toBe(400);
    expect(noMessages.json).toMatchObject({ error: { type: "invalid_request_error", message: "messages: Field required" } });
    const badJson = await postJson(sim, "/v1/messages", "{not json");
    expect(badJson.status).toBe(400);
    expect(badJson.json).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  });

  test("records what it received: path with query, headers and body", async () => {
    sim.received.length = 0;
    await postJson(sim, "/v1/messages?beta=true", { model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }], extra_field: 1 }, {
      "anthropic-beta": "interleaved-thinking-2025-05-14",
      "x-api-key": "anything",
    });
    expect(sim.received).toHaveLength(1);
    const got = sim.received[0];
    expect(got?.method).toBe("POST");
    expect(got?.path).toBe("/v1/messages?beta=true");
    expect(got?.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    expect(got?.body).toMatchObject({ model: MODEL, extra_field: 1 });
  });
});
