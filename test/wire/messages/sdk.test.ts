import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import type { CanonicalResponse } from "../../../src/canonical/response.ts";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { messagesFormat } from "../../../src/wire/messages/client-side.ts";
import { rejectionOf } from "../../helpers/rejection-of.ts";
import { FINAL_USAGE, TOOL_STREAM } from "./stream-events.ts";

const CTX = { model: "normal", created: 1_700_000_000, includeUsage: false };

function encodeStream(events: readonly StreamEvent[]): string {
  let state = messagesFormat.stream.initial(CTX);
  let text = "";
  for (const event of events) {
    const [next, chunk] = messagesFormat.stream.step(state, event);
    state = next;
    text += chunk;
  }
  return text;
}

const RESPONSE: CanonicalResponse = {
  id: "msg_json",
  model: "sim-normal",
  content: [
    { type: "thinking", text: "Plan.", signature: "sig" },
    { type: "text", text: "Calling." },
    { type: "tool_call", id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' },
    { type: "tool_call", id: "call_b", name: "get_time", arguments: '{"zone":"CET"}' },
  ],
  stopReason: { unified: "tool_use", raw: "tool_calls" },
  usage: FINAL_USAGE,
};

const ERROR_STREAM: StreamEvent[] = [
  TOOL_STREAM[0]!,
  { type: "block_start", index: 0, block: { type: "text" } },
  { type: "text_delta", index: 0, text: "Half an ans" },
  { type: "error", error: { status: 529, type: "overloaded_error", message: "upstream overloaded" } },
];

/** An upstream that reports usage only at the end (Chat, Responses): message_start shows zeros. */
const LATE_USAGE_STREAM: StreamEvent[] = [
  { type: "start", id: "chatcmpl-1", model: "gpt-x" },
  { type: "block_start", index: 0, block: { type: "text" } },
  { type: "text_delta", index: 0, text: "Done" },
  { type: "block_stop", index: 0 },
  { type: "finish", stopReason: { unified: "max_tokens", raw: "length" }, usage: FINAL_USAGE },
];

/** Bodies served by `model`: what the pipeline would write for each case. */
const STREAMS: Record<string, string> = {
  tools: encodeStream(TOOL_STREAM),
  error: encodeStream(ERROR_STREAM),
  late: encodeStream(LATE_USAGE_STREAM),
};

let server: ReturnType<typeof Bun.serve>;
let client: Anthropic;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as { model: string; stream?: boolean };
      if (!body.stream) return Response.json(messagesFormat.encodeResponse(RESPONSE, CTX));
      return new Response(STREAMS[body.model] ?? "", { headers: { "content-type": "text/event-stream" } });
    },
  });
  client = new Anthropic({ baseURL: `http://127.0.0.1:${server.port}`, apiKey: "k", maxRetries: 0 });
}, 30_000);
afterAll(() => server.stop(true), 30_000);

const params = (model: string) => ({ model, max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] });

describe("Messages encoders against @anthropic-ai/sdk", () => {
  test("messages.stream().finalMessage(): thinking, text, parsed parallel tool inputs, usage, stop reason", async () => {
    const stream = client.messages.stream(params("tools"));
    const jsonSnapshots: unknown[] = [];
    stream.on("inputJson", (_partial, snapshot) => jsonSnapshots.push(snapshot));
    const message = await stream.finalMessage();
    expect(message.model).toBe("normal");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Two lookups are needed.", signature: "c2lnbmF0dXJl" },
      { type: "text", text: "Checking both." },
      { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "toolu_b", name: "get_time", input: { zone: "CET" } },
    ] as never);
    expect(jsonSnapshots.length).toBeGreaterThanOrEqual(3);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 50, cache_read_input_tokens: 1000, cache_creation_input_tokens: 150, output_tokens: 95 });
  });

  test("messages.create (non-stream): content, inputs, usage, stop reason", async () => {
    const message = await client.messages.create(params("json"));
    expect(message.model).toBe("normal");
    expect(message.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(message.content[2]).toMatchObject({ id: "call_a", input: { city: "Paris" } });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 50, cache_read_input_tokens: 1000, cache_creation_input_tokens: 150, output_tokens: 95 });
  });

  test("usage known only at the end replaces the zeros of message_start", async () => {
    const message = await client.messages.stream(params("late")).finalMessage();
    expect(message.content).toEqual([{ type: "text", text: "Done" }] as never);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage).toMatchObject({ input_tokens: 50, cache_read_input_tokens: 1000, cache_creation_input_tokens: 150, output_tokens: 95 });
  });

  test("an in-stream error makes the SDK throw instead of returning a clean message", async () => {
    const error = await rejectionOf(client.messages.stream(params("error")).finalMessage());
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain("overloaded");
  });
});
