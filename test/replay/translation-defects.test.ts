import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import type { JsonObject, Recording } from "./recordings.ts";
import { replayConfig } from "./replay-config.ts";
import { startReplayUpstream, type ReplayUpstream } from "./start-replay-upstream.ts";

/**
 * Three translation defects other gateways shipped, each tried as a client would, against an
 * upstream that answers as described (docs/translation.md has the rules they break).
 */
const chunk = (delta: JsonObject, finish: string | null = null): JsonObject => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});
const call = (index: number, fields: JsonObject): JsonObject => chunk({ tool_calls: [{ index, ...fields }] });
const stream = (file: string, api: Recording["api"], events: JsonObject[]): Recording => ({ file, api, stream: true, events, lines: events.map((e) => JSON.stringify(e)) });
const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** Calls 0 and 1 start, then arguments for 0, then 1, then 0, then 1. */
const INTERLEAVED = stream("test/interleaved.chunks.txt", "chat", [
  chunk({ role: "assistant", content: null }),
  call(0, { id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }),
  call(1, { id: "call_b", type: "function", function: { name: "get_time", arguments: "" } }),
  call(0, { function: { arguments: '{"city":' } }),
  call(1, { function: { arguments: '{"zone":' } }),
  call(0, { function: { arguments: '"Paris"}' } }),
  call(1, { function: { arguments: '"UTC"}' } }),
  chunk({}, "tool_calls"),
  { ...chunk({}), choices: [], usage: USAGE },
]);
const INTERLEAVED_ARGS = { call_a: { city: "Paris" }, call_b: { zone: "UTC" } };

const THINKING = { type: "thinking", thinking: "Let me check the weather.", signature: "sig-abc123" };
const REDACTED = { type: "redacted_thinking", data: "EmwKAhgBEgy-opaque-redacted-data" };
const TOOL_USE = { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } };
const MESSAGE = { id: "msg_1", type: "message", role: "assistant", model: "m", stop_reason: "tool_use", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 20 } };
const SIGNED: Recording = { file: "test/signed.json", api: "messages", stream: false, body: { ...MESSAGE, content: [THINKING, REDACTED, TOOL_USE] } };
const SIGNED_STREAM = stream("test/signed.chunks.txt", "messages", [
  { type: "message_start", message: { ...MESSAGE, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: THINKING.thinking } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: THINKING.signature } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: REDACTED },
  { type: "content_block_stop", index: 1 },
  { type: "content_block_start", index: 2, content_block: { ...TOOL_USE, input: {} } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: JSON.stringify(TOOL_USE.input) } },
  { type: "content_block_stop", index: 2 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 20 } },
  { type: "message_stop" },
]);

const ODD_ID = "functions.get_weather:0";
const ODD: Recording = {
  file: "test/odd-id.json",
  api: "chat",
  stream: false,
  body: {
    id: "chatcmpl-2",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [{ id: ODD_ID, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] }, finish_reason: "tool_calls" }],
    usage: USAGE,
  },
};
const ODD_STREAM = stream("test/odd-id.chunks.txt", "chat", [
  chunk({ role: "assistant", content: null }),
  call(0, { id: ODD_ID, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }),
  chunk({}, "tool_calls"),
  { ...chunk({}), choices: [], usage: USAGE },
]);

let replay: ReplayUpstream;
let gw: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  replay = await startReplayUpstream([INTERLEAVED, SIGNED, SIGNED_STREAM, ODD, ODD_STREAM]);
  // Thinking on, as agents run it: the upstream must get its thinking back in a tool loop.
  gw = await startTestGateway({ fileConfig: replayConfig(replay.url, "medium"), recordSim: false });
  const { key } = await gw.account("Enterprise");
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await replay?.stop();
}, 30_000);

const mark = (r: Recording): string => `REPLAY:${r.file}`;

/** The `call_id`s of a Responses output's function calls. */
function callIds(output: readonly unknown[]): string[] {
  return output.flatMap((item) => {
    const o = item as { type?: string; call_id?: string };
    return o.type === "function_call" && typeof o.call_id === "string" ? [o.call_id] : [];
  });
}

/** A Messages turn, streamed or not (the replaying upstream answers in the recording's own way). */
async function ask(streamed: boolean, params: Anthropic.MessageCreateParamsNonStreaming): Promise<Anthropic.Message> {
  return streamed ? anthropic.messages.stream(params).finalMessage() : anthropic.messages.create(params);
}
const TOOLS = [
  { name: "get_weather", description: "Weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } },
  { name: "get_time", description: "Time", input_schema: { type: "object" as const, properties: { zone: { type: "string" } } } },
];

describe("parallel tool calls whose argument pieces interleave (Chat upstream): no delta after its block or item is closed", () => {
  test("Messages client: each call's block gets all its arguments before its content_block_stop", async () => {
    const events: Anthropic.MessageStreamEvent[] = [];
    const running = anthropic.messages.stream({ model: "fast", max_tokens: 1024, tools: TOOLS, messages: [{ role: "user", content: mark(INTERLEAVED) }] });
    running.on("streamEvent", (event) => events.push(event));
    const final = await running.finalMessage();
    const stopped = new Set<number>();
    const args = new Map<number, string>();
    const atStop: Record<string, unknown> = {};
    const ids = new Map<number, string>();
    for (const event of events) {
      if (event.type === "content_block_start" && event.content_block.type === "tool_use") ids.set(event.index, event.content_block.id);
      if (event.type === "content_block_delta") {
        expect(stopped.has(event.index)).toBe(false);
        if (event.delta.type === "input_json_delta") args.set(event.index, (args.get(event.index) ?? "") + event.delta.partial_json);
      }
      if (event.type === "content_block_stop") {
        stopped.add(event.index);
        // What a client that acts when a block closes would run the tool with.
        if (ids.has(event.index)) atStop[ids.get(event.index)!] = JSON.parse(args.get(event.index) ?? "{}");
      }
    }
    expect(atStop).toEqual(INTERLEAVED_ARGS);
    expect(final.content.map((b) => (b.type === "tool_use" ? [b.id, b.input] : b.type))).toEqual(Object.entries(INTERLEAVED_ARGS));
  });

  test("Responses client: no argument delta after its item is done; each item is done with its whole arguments", async () => {
    const running = openai.responses.stream({ model: "fast", input: mark(INTERLEAVED), tools: TOOLS.map((t) => ({ type: "function" as const, name: t.name, parameters: t.input_schema, strict: false })) });
    const done = new Set<string>();
    const atDone: Record<string, unknown> = {};
    for await (const event of running) {
      if (event.type === "response.function_call_arguments.delta") expect(done.has(event.item_id)).toBe(false);
      if (event.type === "response.output_item.done" && event.item.type === "function_call") {
        done.add(event.item.id!);
        atDone[event.item.call_id] = JSON.parse(event.item.arguments);
      }
    }
    expect(atDone).toEqual(INTERLEAVED_ARGS);
  });

  test("Chat client: no tool-call delta after the finish chunk; the calls are whole", async () => {
    const chunks = await openai.chat.completions.create({ model: "fast", stream: true, messages: [{ role: "user", content: mark(INTERLEAVED) }] });
    let finished = false;
    const args = new Map<number, string>();
    const ids = new Map<number, string>();
    for await (const c of chunks) {
      const choice = c.choices[0];
      if (!choice) continue;
      for (const d of choice.delta.tool_calls ?? []) {
        expect(finished).toBe(false);
        if (d.id) ids.set(d.index, d.id);
        args.set(d.index, (args.get(d.index) ?? "") + (d.function?.arguments ?? ""));
      }
      finished ||= choice.finish_reason !== null;
    }
    expect(Object.fromEntries([...ids].map(([i, id]) => [id, JSON.parse(args.get(i)!)]))).toEqual(INTERLEAVED_ARGS);
  });
});

/** The last assistant turn the Messages upstream received. */
function lastAssistantTurn(): unknown[] {
  const body = replay.received.at(-1)!.body as { messages: { role: string; content: unknown[] }[] };
  return body.messages.filter((m) => m.role === "assistant").at(-1)!.content;
}

describe.each([
  ["non-stream", SIGNED, false],
  ["stream", SIGNED_STREAM, true],
] as const)("signed and redacted thinking of a Messages upstream come back unchanged (%s)", (_name, recording, streamed) => {
  test("through a Responses client: the next turn sends the thinking, the redacted block and the call back as they were", async () => {
    const body = { model: "normal", input: mark(recording), store: false, include: ["reasoning.encrypted_content" as const] };
    const first = streamed ? await openai.responses.stream({ ...body, stream: true }).finalResponse() : await openai.responses.create(body);
    expect(first.output.map((item) => item.type)).toEqual(["reasoning", "reasoning", "function_call"]);
    const callId = callIds(first.output)[0]!;
    const input = [{ role: "user" as const, content: mark(recording) }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output" as const, call_id: callId, output: "Sunny" }];
    if (streamed) await openai.responses.stream({ ...body, input, stream: true }).finalResponse();
    else await openai.responses.create({ ...body, input });
    expect(lastAssistantTurn()).toEqual([THINKING, REDACTED, TOOL_USE]);
  });

  test("through a Messages client", async () => {
    const params = { model: "normal", max_tokens: 1024, tools: TOOLS, messages: [{ role: "user" as const, content: mark(recording) }] };
    const first = streamed ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
    const use = first.content.find((b) => b.type === "tool_use")!;
    await ask(streamed, {
      ...params,
      messages: [...params.messages, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "Sunny" }] }],
    });
    expect(lastAssistantTurn()).toEqual([THINKING, REDACTED, TOOL_USE]);
  });
});

describe.each([
  ["non-stream", ODD, false],
  ["stream", ODD_STREAM, true],
] as const)("a Chat upstream's tool-call id the Messages format cannot hold (%s)", (_name, recording, streamed) => {
  test("reaches a Messages client valid, and goes back upstream as the original when the history returns", async () => {
    const params = { model: "fast", max_tokens: 1024, tools: TOOLS, messages: [{ role: "user" as const, content: mark(recording) }] };
    const first = streamed ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
    const use = first.content.find((b) => b.type === "tool_use")!;
    if (use.type !== "tool_use") throw new Error("expected a tool call");
    expect(use.id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(use.input).toEqual({ city: "Paris" });
    await ask(streamed, {
      ...params,
      messages: [...params.messages, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "Sunny" }] }],
    });
    const sent = replay.received.at(-1)!.body as { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[] };
    expect(sent.messages.find((m) => m.role === "assistant")?.tool_calls?.map((c) => c.id)).toEqual([ODD_ID]);
    expect(sent.messages.find((m) => m.role === "tool")?.tool_call_id).toBe(ODD_ID);
  });

  test("reaches Chat and Responses clients as it is (both take any id)", async () => {
    const chat = streamed
      ? await openai.chat.completions.stream({ model: "fast", stream: true, messages: [{ role: "user", content: mark(recording) }] }).finalChatCompletion()
      : await openai.chat.completions.create({ model: "fast", messages: [{ role: "user", content: mark(recording) }] });
    expect(chat.choices[0]!.message.tool_calls?.map((c) => c.id)).toEqual([ODD_ID]);
    const body = { model: "fast", input: mark(recording), store: false };
    const response = streamed ? await openai.responses.stream({ ...body, stream: true }).finalResponse() : await openai.responses.create(body);
    expect(callIds(response.output)).toEqual([ODD_ID]);
  });
});
