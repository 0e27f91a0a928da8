import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

/**
 * The spec (Events 4): a content filter that blocks a streamed reply cuts the stream and sends an
 * error event. Translated (a Chat upstream for a Messages client) and passed through (Chat for
 * Chat, Responses for Responses), the stream ends with the format's error event, the text before
 * it arrives, no clean ending follows, and the tokens spent are still accounted for.
 *
 * The stub upstream answers by the prompt: "filter" (or anything else) gets a filtered ending,
 * "quoted" a clean answer whose text merely contains `"content_filter"`. Its filtered Chat chunk
 * is written in two pieces split inside the marker, and its usage chunk after a pause, so the
 * gateway meets the marker across a seam and the usage after the filtered chunk.
 */
const FILTERED_MESSAGE = "the reply was blocked by the upstream's content filter";
const CHAT_USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
const RESPONSES_USAGE = { input_tokens: 13, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 };
/** A reply text that puts the raw bytes `"content_filter"` on the wire inside a JSON string. */
const QUOTED_TEXT = 'Set finish_reason to "content_filter';

const sse = (data: object, event?: string): string => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

function chatChunk(model: string, delta: object, finish: string | null, withUsageField: boolean): string {
  return sse({
    id: "chatcmpl-f",
    object: "chat.completion.chunk",
    created: 1,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(withUsageField ? { usage: null } : {}),
  });
}

/** The upstream's bytes, written piece by piece with a pause between, as a live upstream does. */
function streamOf(pieces: readonly string[]): Response {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const piece of pieces) {
        controller.enqueue(new TextEncoder().encode(piece));
        await Bun.sleep(15);
      }
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

interface ChatBody {
  readonly model: string;
  readonly messages: ReadonlyArray<{ readonly content: string }>;
  readonly stream_options?: { readonly include_usage?: boolean };
}

interface ResponsesBody {
  readonly model: string;
  readonly input: string;
}

/** Every upstream answer sent, by prompt, so a pass-through can be compared with what went upstream. */
const sentUpstream = new Map<string, string>();

function chatAnswer(body: ChatBody): Response {
  const prompt = body.messages.at(-1)?.content ?? "";
  const usage = body.stream_options?.include_usage === true;
  const opening = chatChunk(body.model, { role: "assistant", content: "" }, null, usage);
  if (prompt.includes("quoted")) {
    const pieces = [
      opening,
      chatChunk(body.model, { content: QUOTED_TEXT }, null, usage),
      chatChunk(body.model, {}, "stop", usage),
      ...(usage ? [sse({ id: "chatcmpl-f", object: "chat.completion.chunk", created: 1, model: body.model, choices: [], usage: CHAT_USAGE })] : []),
      "data: [DONE]\n\n",
    ];
    sentUpstream.set(prompt, pieces.join(""));
    return streamOf(pieces);
  }
  const filtered = chatChunk(body.model, {}, "content_filter", usage);
  const split = filtered.indexOf('"content_filter"') + 6;
  return streamOf([
    opening,
    chatChunk(body.model, { content: "Here is how to" }, null, usage),
    filtered.slice(0, split),
    filtered.slice(split),
    ...(usage ? [sse({ id: "chatcmpl-f", object: "chat.completion.chunk", created: 1, model: body.model, choices: [], usage: CHAT_USAGE })] : []),
    "data: [DONE]\n\n",
  ]);
}

function responsesAnswer(body: ResponsesBody): Response {
  const base = { id: "resp_f", object: "response", created_at: 1, model: body.model, output: [], error: null, incomplete_details: null, usage: null };
  const created = sse({ type: "response.created", sequence_number: 0, response: { ...base, status: "in_progress" } }, "response.created");
  const delta = (text: string) =>
    sse({ type: "response.output_text.delta", sequence_number: 1, item_id: "msg_f", output_index: 0, content_index: 0, delta: text }, "response.output_text.delta");
  const output = (text: string) => [{ id: "msg_f", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }];
  if (body.input.includes("quoted")) {
    const pieces = [
      created,
      delta(QUOTED_TEXT),
      sse({ type: "response.completed", sequence_number: 2, response: { ...base, status: "completed", output: output(QUOTED_TEXT), usage: RESPONSES_USAGE } }, "response.completed"),
    ];
    sentUpstream.set(body.input, pieces.join(""));
    return streamOf(pieces);
  }
  const incomplete = { ...base, status: "incomplete", incomplete_details: { reason: "content_filter" }, output: output("Here is how to"), usage: RESPONSES_USAGE };
  return streamOf([created, delta("Here is how to"), sse({ type: "response.incomplete", sequence_number: 2, response: incomplete }, "response.incomplete")]);
}

const upstream = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path.endsWith("/responses")) return responsesAnswer((await request.json()) as ResponsesBody);
    return chatAnswer((await request.json()) as ChatBody);
  },
});

const filteredModel = (upstreamId: string, apis: readonly ("chat" | "responses")[]) => ({
  ...DEFAULT_CONFIG.models["sim-fast"]!,
  provider: "filtering",
  upstreamId,
  apis: [...apis],
});

const CONFIG: FileConfig = {
  ...UNCACHED_CONFIG,
  providers: { ...DEFAULT_CONFIG.providers, filtering: { kind: "openai-compatible", baseUrl: upstream.url.origin } },
  models: {
    ...DEFAULT_CONFIG.models,
    filtered: filteredModel("filtered", ["chat"]),
    "filtered-responses": filteredModel("filtered-r", ["responses"]),
    // Named as its tier: the stream passes without the model rewrite, so the screen holds lines itself.
    "filtered-same-name": filteredModel("smart", ["chat"]),
  },
  tiers: {
    ...DEFAULT_CONFIG.tiers,
    fast: { ...DEFAULT_CONFIG.tiers.fast, models: ["filtered"] },
    normal: { ...DEFAULT_CONFIG.tiers.normal, models: ["filtered-responses"] },
    smart: { ...DEFAULT_CONFIG.tiers.smart, models: ["filtered-same-name"] },
  },
};

const logDir = mkdtempSync(join(tmpdir(), "routelane-filter-"));
const logFile = join(logDir, "requests.log");

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: CONFIG, env: { ROUTELANE_LOG_DESTINATION: logFile, ROUTELANE_LOG_LEVEL: "info" } });
  ({ key } = await gw.account("Enterprise"));
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await gw.stop();
  upstream.stop(true);
  rmSync(logDir, { recursive: true, force: true });
}, DATABASE_HOOK_TIMEOUT_MS);

interface LogLine {
  readonly requestId: string;
  readonly streamError?: string;
  readonly tokens?: { readonly input: number; readonly output: number };
}

/** The request's log line, once the stream's end has been recorded (it may come after the client's end). */
async function logLineOf(requestId: string): Promise<LogLine> {
  for (let i = 0; i < 200; i++) {
    await gw.gateway.requestLog.flush();
    const text = readFileSync(logFile, "utf8");
    const line = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine)
      .find((l) => l.requestId === requestId);
    if (line) return line;
    await Bun.sleep(25);
  }
  throw new Error(`no request log line for ${requestId}`);
}

/** The request's usage row, once the usage writer has stored it. */
async function usageRowOf(requestId: string): Promise<{ input: number; output: number; status: number }> {
  for (let i = 0; i < 400; i++) {
    const rows = await gw.gateway.database.rows<{ input: number; output: number; status: number }>(
      sql`select input_tokens::int as input, output_tokens::int as output, status from usage_records where request_id = ${requestId}`,
    );
    if (rows[0]) return rows[0];
    await Bun.sleep(25);
  }
  throw new Error(`no usage row for ${requestId}`);
}

async function post(path: string, body: object): Promise<{ text: string; requestId: string }> {
  const res = await fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return { text: await res.text(), requestId: res.headers.get("x-router-request-id") ?? "" };
}

/** The `data:` payloads of a stream, in order. */
const dataOf = (text: string): string[] =>
  text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => block.split("\n").find((line) => line.startsWith("data:"))?.slice(5).trim() ?? "");

test("a streamed reply blocked by a content filter ends with the format's error event", async () => {
  const { text } = await post("/v1/messages", { model: "fast", max_tokens: 64, stream: true, messages: [{ role: "user", content: "hello" }] });
  expect(text).toContain("Here is how to");
  expect(text).toContain("event: error");
  expect(text).toContain("content filter");
  expect(text).not.toContain("message_stop");
});

describe("same-format Chat stream", () => {
  test("without include_usage: the filtered chunk becomes the Chat error chunk, nothing follows, usage still recorded", async () => {
    const { text, requestId } = await post("/v1/chat/completions", { model: "fast", stream: true, messages: [{ role: "user", content: "filter me" }] });
    const data = dataOf(text);
    expect(text).toContain("Here is how to");
    expect(text).not.toContain("[DONE]");
    expect(text).not.toContain('"finish_reason":"content_filter"');
    expect(JSON.parse(data.at(-1)!)).toEqual({ error: { message: FILTERED_MESSAGE, type: "invalid_request_error", param: null, code: "invalid_request_error" } });
    // The usage chunk the gateway asked for came after the filtered chunk: read, never sent.
    expect(data.some((d) => d.includes('"choices":[]'))).toBe(false);

    const line = await logLineOf(requestId);
    expect(line.streamError).toBe(FILTERED_MESSAGE);
    expect(line.tokens).toMatchObject({ input: 11, output: 7 });
    expect(await usageRowOf(requestId)).toMatchObject({ input: 11, output: 7, status: 200 });
  }, 30_000);

  test("with include_usage, through the openai SDK: the text arrives, then the SDK throws the filter's error", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const { data: stream, response } = await openai.chat.completions
      .create({ model: "fast", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "filter me too" }] })
      .withResponse();
    const requestId = response.headers.get("x-router-request-id") ?? "";
    let text = "";
    let thrown: unknown;
    try {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        expect(chunk.choices[0]?.finish_reason ?? null).not.toBe("content_filter");
      }
    } catch (error) {
      thrown = error;
    }
    expect(text).toBe("Here is how to");
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect((thrown as InstanceType<typeof OpenAI.APIError>).message).toContain(FILTERED_MESSAGE);

    const line = await logLineOf(requestId);
    expect(line.streamError).toBe(FILTERED_MESSAGE);
    expect(await usageRowOf(requestId)).toMatchObject({ input: 11, output: 7 });
  }, 30_000);

  test("a model named as its tier (no model rewrite): the marker split across chunks is still found", async () => {
    const { text, requestId } = await post("/v1/chat/completions", { model: "smart", stream: true, messages: [{ role: "user", content: "filter, unrewritten" }] });
    expect(text).toContain("Here is how to");
    expect(text).not.toContain("[DONE]");
    expect(JSON.parse(dataOf(text).at(-1)!).error.message).toBe(FILTERED_MESSAGE);
    expect(await usageRowOf(requestId)).toMatchObject({ input: 11, output: 7 });
  }, 30_000);

  test('a reply whose text merely contains "content_filter" passes through untouched', async () => {
    const prompt = "quoted chat";
    const { text, requestId } = await post("/v1/chat/completions", { model: "fast", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: prompt }] });
    // Byte for byte but for the model field, which shows the tier (padded with blanks in place).
    expect(text.replaceAll(/"model":"fast" */g, '"model":"fast"')).toBe(sentUpstream.get(prompt)!.replaceAll('"model":"filtered"', '"model":"fast"'));
    expect(text).toContain('\\"content_filter"');
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect((await logLineOf(requestId)).streamError).toBeUndefined();
  }, 30_000);
});

describe("same-format Responses stream", () => {
  test("response.incomplete for content_filter becomes the Responses error event, its usage kept", async () => {
    const { text, requestId } = await post("/v1/responses", { model: "normal", stream: true, input: "filter me" });
    expect(text).toContain("Here is how to");
    expect(text).not.toContain("response.incomplete");
    expect(text).not.toContain("response.completed");
    expect(text.trimEnd().split("\n\n").at(-1)!.startsWith("event: error\n")).toBe(true);
    const error = JSON.parse(dataOf(text).at(-1)!);
    expect(error).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: FILTERED_MESSAGE }, sequence_number: 2 });

    const line = await logLineOf(requestId);
    expect(line.streamError).toBe(FILTERED_MESSAGE);
    expect(line.tokens).toMatchObject({ input: 13, output: 5 });
    expect(await usageRowOf(requestId)).toMatchObject({ input: 13, output: 5, status: 200 });
  }, 30_000);

  test("through the openai SDK: the text arrives, then the SDK throws the filter's error, and no completed response", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const stream = await openai.responses.create({ model: "normal", stream: true, input: "filter me again" });
    let text = "";
    const types: string[] = [];
    let thrown: unknown;
    try {
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "response.output_text.delta") text += event.delta;
      }
    } catch (error) {
      thrown = error;
    }
    expect(text).toBe("Here is how to");
    expect(types).not.toContain("response.completed");
    expect(types).not.toContain("response.incomplete");
    // The SDK throws on an `error` event, as on the Chat error chunk.
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect((thrown as InstanceType<typeof OpenAI.APIError>).message).toContain(FILTERED_MESSAGE);
  }, 30_000);

  test('a reply whose text merely contains "content_filter" passes through untouched', async () => {
    const prompt = "quoted responses";
    const { text, requestId } = await post("/v1/responses", { model: "normal", stream: true, input: prompt });
    expect(text.replaceAll(/"model":"normal" */g, '"model":"normal"')).toBe(sentUpstream.get(prompt)!.replaceAll('"model":"filtered-r"', '"model":"normal"'));
    expect(text).toContain("event: response.completed");
    expect((await logLineOf(requestId)).streamError).toBeUndefined();
  }, 30_000);
});
