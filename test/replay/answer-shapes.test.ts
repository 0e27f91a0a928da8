import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CanonicalResponse } from "../../src/canonical/response.ts";
import type { StreamEvent } from "../../src/canonical/stream-event.ts";
import { WIRE_FORMATS, type WireFormat } from "../../src/canonical/wire-format.ts";
import type { EncodeContext } from "../../src/wire/client-format.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { addShapes, eventRoot, recordedShapes, sseData, shapeDifferences, type Shapes } from "./key-shapes.ts";
import { loadRecordings, type JsonObject } from "./recordings.ts";

/**
 * What the simulated upstream and the gateway's own encoders write must look like what the real
 * APIs send: for every kind of object (event, block, item, usage …), its keys are among the keys
 * the recordings show for that kind, and null only where the recordings have null.
 */
const RECORDED: Readonly<Record<WireFormat, Shapes>> = Object.fromEntries(WIRE_FORMATS.map((api) => [api, recordedShapes(loadRecordings(), api)])) as Record<WireFormat, Shapes>;

/**
 * What no recording shows, written from the API's documentation instead (kinds, or kind.key): each
 * is named here with its reason, so that nothing unchecked slips in unnoticed. A kind covers the
 * kinds inside it.
 */
const UNRECORDED: readonly string[] = [
  // No recorded Messages stream fails midway; the error event's shape is the documented one.
  "event:error<error>",
  // No recording holds redacted thinking (it takes a flagged prompt).
  "body<message>.content[]<redacted_thinking>",
  "event:content_block_start<content_block_start>.content_block<redacted_thinking>",
  // No recorded Chat stream fails midway: the SDKs read the documented error object.
  "chunk.error",
  // The corpus's only streamed Chat tool calls come whole in one chunk; OpenAI's argument
  // fragments that follow a call's first chunk carry no `type`.
  "chunk.choices[].delta.tool_calls[]",
  // Cache writes in OpenAI usage are documented (wire-formats §4.4) and newer than the recordings.
  "chunk.usage.prompt_tokens_details.cache_write_tokens",
  "body.usage.prompt_tokens_details.cache_write_tokens",
  "body.usage.input_tokens_details.cache_write_tokens",
  "event:response.completed<response.completed>.response.usage.input_tokens_details.cache_write_tokens",
  // No recorded Responses answer was cut at max_output_tokens; its terminal event and details are documented.
  "event:response.incomplete<response.incomplete>",
  "body.incomplete_details",
];

function differences(api: WireFormat, emitted: Shapes): string[] {
  const covered = (line: string): boolean => {
    const at = line.lastIndexOf(": ");
    const where = line.slice(0, at);
    return UNRECORDED.some((known) => where === known || where.startsWith(`${known}.`) || where.startsWith(`${known}[]`) || where.startsWith(`${known}<`));
  };
  return shapeDifferences(RECORDED[api], emitted).filter((line) => !covered(line));
}

function shapesOfStream(api: WireFormat, text: string): Shapes {
  const shapes: Shapes = new Map();
  for (const data of sseData(text)) addShapes(shapes, eventRoot(api, data), data);
  return shapes;
}

function shapesOfBody(body: unknown): Shapes {
  const shapes: Shapes = new Map();
  addShapes(shapes, "body", body);
  return shapes;
}

const WEATHER = { name: "get_weather", description: "Weather for a city", schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

/** Requests that make the simulator use every part of its answers: text, thinking, tools, a length stop. */
function simRequests(api: WireFormat): { name: string; path: string; body: JsonObject }[] {
  const prompts = [
    { name: "text", user: "Hello there", maxTokens: 512, tools: false, think: false },
    { name: "thinking", user: "Think about the plan", maxTokens: 2048, tools: false, think: true },
    { name: "tools", user: '[sim tool=get_weather,get_weather args={"city":"Paris"}] weather?', maxTokens: 512, tools: true, think: false },
    { name: "length", user: "[sim words=80] go on", maxTokens: 20, tools: false, think: false },
  ];
  return prompts.map((p) => {
    if (api === "messages") {
      return {
        name: p.name,
        path: "/v1/messages",
        body: {
          model: "sim-normal",
          max_tokens: p.maxTokens,
          messages: [{ role: "user", content: p.user }],
          ...(p.think ? { thinking: { type: "enabled", budget_tokens: 1024 } } : {}),
          ...(p.tools ? { tools: [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.schema }] } : {}),
        },
      };
    }
    if (api === "chat") {
      return {
        name: p.name,
        path: "/v1/chat/completions",
        body: {
          model: "sim-fast",
          max_completion_tokens: p.maxTokens,
          messages: [{ role: "user", content: p.user }],
          ...(p.think ? { reasoning_effort: "low" } : {}),
          ...(p.tools ? { tools: [{ type: "function", function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema } }] } : {}),
        },
      };
    }
    return {
      name: p.name,
      path: "/v1/responses",
      body: {
        model: "sim-smart",
        max_output_tokens: p.maxTokens,
        input: p.user,
        ...(p.think ? { reasoning: { effort: "low", summary: "auto" }, include: ["reasoning.encrypted_content"] } : {}),
        ...(p.tools ? { tools: [{ type: "function", name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema, strict: false }] } : {}),
      },
    };
  });
}

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(() => sim.stop());

async function post(path: string, body: JsonObject): Promise<string> {
  const response = await fetch(sim.url + path, { method: "POST", headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return response.text();
}

describe.each(WIRE_FORMATS)("the simulated %s API answers with the recorded keys", (api) => {
  test.each(simRequests(api).map((r) => [r.name, r] as const))("%s", async (_name, request) => {
    const body = JSON.parse(await post(request.path, request.body)) as unknown;
    expect(differences(api, shapesOfBody(body))).toEqual([]);
    const stream = await post(request.path, { ...request.body, stream: true, ...(api === "chat" ? { stream_options: { include_usage: true } } : {}) });
    expect(differences(api, shapesOfStream(api, stream))).toEqual([]);
  });

  if (api === "messages") {
    test("a stream pings as the Messages API does: after the first block starts, and when no block starts", async () => {
      const [withBlock] = simRequests(api);
      const events = sseData(await post(withBlock!.path, { ...withBlock!.body, stream: true })).map((e) => e.type);
      expect(events.slice(0, 3)).toEqual(["message_start", "content_block_start", "ping"]);
      expect(events.filter((t) => t === "ping")).toHaveLength(1);
    });
  }
});

/** Canonical answers that use every part an encoder writes. */
const USAGE = { inputTokens: 120, outputTokens: 40, cacheReadTokens: 30, cacheWriteTokens: 10, reasoningTokens: 12 };
const ANSWERS: readonly { name: string; events: StreamEvent[] }[] = [
  {
    name: "thinking, text and two tool calls",
    events: [
      { type: "start", id: "msg_1", model: "m", usage: { ...USAGE, outputTokens: 1 } },
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "thinking_delta", index: 0, text: "Let me think." },
      { type: "signature_delta", index: 0, signature: "sig" },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "text_delta", index: 1, text: "Calling." },
      { type: "block_stop", index: 1 },
      { type: "block_start", index: 2, block: { type: "tool_call", id: "toolu_1", name: "get_weather" } },
      { type: "tool_args_delta", index: 2, fragment: '{"city":' },
      { type: "tool_args_delta", index: 2, fragment: '"Paris"}' },
      { type: "block_stop", index: 2 },
      { type: "block_start", index: 3, block: { type: "tool_call", id: "toolu_2", name: "get_weather" } },
      { type: "tool_args_delta", index: 3, fragment: '{"city":"Rome"}' },
      { type: "block_stop", index: 3 },
      { type: "finish", stopReason: { unified: "tool_use", raw: "tool_use" }, usage: USAGE },
    ],
  },
  {
    name: "text cut at max tokens",
    events: [
      { type: "start", id: "msg_2", model: "m" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "Once upon" },
      { type: "block_stop", index: 0 },
      { type: "finish", stopReason: { unified: "max_tokens", raw: "max_tokens" }, usage: USAGE },
    ],
  },
  {
    name: "a refusal",
    events: [
      { type: "start", id: "msg_3", model: "m" },
      { type: "finish", stopReason: { unified: "refusal", raw: "refusal" }, usage: USAGE },
    ],
  },
  {
    name: "a failure midway",
    events: [
      { type: "start", id: "msg_4", model: "m" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "Once" },
      { type: "error", error: { status: 529, type: "overloaded_error", message: "upstream overloaded" } },
    ],
  },
];

const CTX: EncodeContext = { model: "normal", created: 1_700_000_000, includeUsage: true };

/** The whole answer of a canonical stream, for the non-stream encoders. */
function responseOf(events: readonly StreamEvent[]): CanonicalResponse | null {
  const finish = events.find((e) => e.type === "finish");
  if (finish?.type !== "finish") return null;
  const content: CanonicalResponse["content"][number][] = [];
  const parts = new Map<number, { type: string; text: string; signature?: string; id?: string; name?: string }>();
  for (const e of events) {
    if (e.type === "block_start") parts.set(e.index, { type: e.block.type, text: "", ...(e.block.type === "tool_call" ? { id: e.block.id, name: e.block.name } : {}) });
    if (e.type === "text_delta" || e.type === "thinking_delta") parts.get(e.index)!.text += e.text;
    if (e.type === "tool_args_delta") parts.get(e.index)!.text += e.fragment;
    if (e.type === "signature_delta") parts.get(e.index)!.signature = e.signature;
  }
  for (const p of parts.values()) {
    if (p.type === "text") content.push({ type: "text", text: p.text });
    if (p.type === "thinking") content.push({ type: "thinking", text: p.text, ...(p.signature ? { signature: p.signature } : {}) });
    if (p.type === "tool_call") content.push({ type: "tool_call", id: p.id!, name: p.name!, arguments: p.text });
  }
  return { id: "msg_x", model: "m", content, stopReason: finish.stopReason, usage: finish.usage };
}

describe.each(WIRE_FORMATS)("the gateway's %s encoders write the recorded keys", (format) => {
  test.each(ANSWERS.map((a) => [a.name, a] as const))("%s", (_name, answer) => {
    const encoder = wireApi(format).client;
    let state = encoder.stream.initial(CTX);
    let text = "";
    for (const event of answer.events) {
      const [next, out] = encoder.stream.step(state, event);
      state = next;
      text += out;
    }
    expect(differences(format, shapesOfStream(format, text))).toEqual([]);
    const response = responseOf(answer.events);
    if (response) expect(differences(format, shapesOfBody(encoder.encodeResponse(response, CTX)))).toEqual([]);
  });
});
