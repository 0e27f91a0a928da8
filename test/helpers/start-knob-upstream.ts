import type { Server } from "bun";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";

/**
 * An upstream speaking the three APIs whose every misbehaviour is a knob, set per request by a
 * `[knob key=value …]` directive anywhere in the request body (it survives translation):
 *
 * | knob | effect |
 * |---|---|
 * | `words=N` | the reply is N words (`alpha ` each: one token), one delta each (default 30) |
 * | `delayMs=M` | M ms before the answer's headers (cut short when the caller leaves) |
 * | `pauseAfter=K pauseMs=M` | stream: after K events, M ms of silence, then the rest |
 * | `stallAfter=K` | stream: after K events, silence until the caller leaves |
 * | `cutAfter=K` | stream: after K events, the connection is reset |
 * | `malformedAt=K garbage=brace\|inner\|text` | stream: event K's data is not JSON (`{"type": broken`, `{"type":"x",oops}`, `oops`) |
 * | `errorAt=K` | stream: event K is the API's own error event (then the stream ends) |
 * | `failedAt=K` | stream: event K is Responses `response.failed` (the other APIs: as `errorAt`), then the end |
 * | `truncateAt=K` | stream: the first half of event K, then a clean end of the body |
 * | `oneChunk=1` | stream: every event (after the knobs above) written at once, in one chunk |
 * | `closeAfterMs=M` | stream: M ms between the last event and the end of the body (a real upstream's gap) |
 * | `bodyBytes=N` | non-stream: the reply's text is N bytes (sent in 1 MiB pieces, never held) |
 * | `lineBytes=N` | stream: after the first event, a data line of N bytes with no newline |
 * | `noUsage=1` | no usage anywhere (Messages: `message_start` keeps its input tokens) |
 * | `inputTokens=N` | the input tokens reported (default 50) |
 * | `id=X` | names the request, for `waitGoneId` |
 *
 * Events are counted from 0, pings and `[DONE]` included. `arrived` counts requests received, `gone`
 * those whose caller left before the answer ended.
 */
export interface KnobUpstream {
  readonly url: string;
  readonly server: Server<undefined>;
  /** Requests received. */
  readonly arrived: number;
  /** Resolves when `arrived` reaches `count`. */
  waitArrived(count: number): Promise<void>;
  /** Requests whose caller went away before the answer ended. */
  readonly gone: number;
  /** Resolves when `gone` reaches `count`. */
  waitGone(count: number): Promise<void>;
  /** Resolves when the caller of the request named `id` (the `id` knob) has gone. */
  waitGoneId(id: string): Promise<void>;
  stop(): void;
}

type Api = "messages" | "chat" | "responses";

interface Knobs {
  words: number;
  delayMs: number;
  pauseAfter?: number;
  pauseMs: number;
  stallAfter?: number;
  cutAfter?: number;
  malformedAt?: number;
  garbage: string;
  errorAt?: number;
  failedAt?: number;
  truncateAt?: number;
  oneChunk: boolean;
  closeAfterMs: number;
  bodyBytes?: number;
  lineBytes?: number;
  id?: string;
  noUsage: boolean;
  inputTokens: number;
}

const WORD = "alpha ";
const MIB = 1024 * 1024;
const encoder = new TextEncoder();

function readKnobs(text: string): Knobs {
  const knobs: Knobs = { words: 30, delayMs: 0, pauseMs: 0, garbage: "brace", noUsage: false, oneChunk: false, closeAfterMs: 0, inputTokens: 50 };
  for (const match of text.matchAll(/\[knob ([^\]]*)\]/g)) {
    for (const pair of match[1]!.trim().split(/\s+/)) {
      const [key, value = ""] = pair.split("=");
      if (key === "garbage") knobs.garbage = value;
      else if (key === "id") knobs.id = value;
      else if (key === "noUsage") knobs.noUsage = value === "1";
      else if (key === "oneChunk") knobs.oneChunk = value === "1";
      else if (key !== undefined && key in { words: 1, delayMs: 1, pauseAfter: 1, pauseMs: 1, stallAfter: 1, cutAfter: 1, malformedAt: 1, errorAt: 1, failedAt: 1, truncateAt: 1, closeAfterMs: 1, bodyBytes: 1, lineBytes: 1, inputTokens: 1 }) {
        (knobs as unknown as Record<string, number>)[key] = Number(value);
      }
    }
  }
  return knobs;
}

const frame = (name: string | undefined, data: unknown): string => `${name ? `event: ${name}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

function messagesEvents(model: string, k: Knobs): string[] {
  const usage = { input_tokens: k.inputTokens, output_tokens: 1 };
  const events = [
    frame("message_start", { type: "message_start", message: { id: "msg_knob", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage } }),
    frame("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  ];
  for (let i = 0; i < k.words; i++) events.push(frame("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: WORD } }));
  events.push(frame("content_block_stop", { type: "content_block_stop", index: 0 }));
  events.push(frame("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, ...(k.noUsage ? {} : { usage: { output_tokens: k.words } }) }));
  events.push(frame("message_stop", { type: "message_stop" }));
  return events;
}

function chatEvents(model: string, k: Knobs, includeUsage: boolean): string[] {
  const chunk = (delta: object, finish: string | null = null) => frame(undefined, { id: "chatcmpl-knob", object: "chat.completion.chunk", created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < k.words; i++) events.push(chunk({ content: WORD }));
  events.push(chunk({}, "stop"));
  if (includeUsage && !k.noUsage) {
    const usage = { prompt_tokens: k.inputTokens, completion_tokens: k.words, total_tokens: k.inputTokens + k.words };
    events.push(frame(undefined, { id: "chatcmpl-knob", object: "chat.completion.chunk", created: 1, model, choices: [], usage }));
  }
  events.push(frame(undefined, "[DONE]"));
  return events;
}

function responsesEvents(model: string, k: Knobs): string[] {
  let seq = 0;
  const event = (type: string, fields: object) => frame(type, { type, sequence_number: seq++, ...fields });
  const response = (status: string, output: object[], usage: object | null) => ({ id: "resp_knob", object: "response", created_at: 1, status, model, output, usage });
  const text = WORD.repeat(k.words);
  const item = { id: "msg_knob", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] };
  const events = [
    event("response.created", { response: response("in_progress", [], null) }),
    event("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } }),
    event("response.content_part.added", { item_id: "msg_knob", output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }),
  ];
  for (let i = 0; i < k.words; i++) events.push(event("response.output_text.delta", { item_id: "msg_knob", output_index: 0, content_index: 0, delta: WORD }));
  events.push(event("response.output_text.done", { item_id: "msg_knob", output_index: 0, content_index: 0, text }));
  events.push(event("response.content_part.done", { item_id: "msg_knob", output_index: 0, content_index: 0, part: item.content[0] }));
  events.push(event("response.output_item.done", { output_index: 0, item }));
  const usage = k.noUsage ? null : { input_tokens: k.inputTokens, output_tokens: k.words, total_tokens: k.inputTokens + k.words };
  events.push(event("response.completed", { response: response("completed", [item], usage) }));
  return events;
}

function errorEvent(api: Api, sequence: number, failed = false): string {
  if (api === "responses" && failed) {
    const response = { id: "resp_knob", object: "response", created_at: 1, status: "failed", output: [], usage: null, error: { code: "server_error", message: "knob: the response failed" } };
    return frame("response.failed", { type: "response.failed", sequence_number: sequence, response });
  }
  if (api === "messages") return frame("error", { type: "error", error: { type: "overloaded_error", message: "knob: overloaded mid-stream" } });
  if (api === "chat") return frame(undefined, { error: { message: "knob: overloaded mid-stream", type: "server_error", code: null } });
  return frame("error", { type: "error", sequence_number: sequence, code: "server_error", message: "knob: overloaded mid-stream" });
}

const GARBAGE: Record<string, string> = { brace: '{"type": broken', inner: '{"type":"x",oops}', text: "oops" };

/** The `[knob …]` text of a body, and the body's API facts the answer needs. */
function requestFacts(body: Record<string, unknown>): { knobs: Knobs; stream: boolean; includeUsage: boolean; model: string } {
  const options = body.stream_options;
  const includeUsage = typeof options === "object" && options !== null && (options as Record<string, unknown>).include_usage === true;
  return { knobs: readKnobs(JSON.stringify(body)), stream: body.stream === true, includeUsage, model: String(body.model ?? "knob") };
}

/** A non-stream answer whose text is `bytes` long, produced in pieces: the upstream itself never holds it. */
function bigAnswer(api: Api, model: string, bytes: number, k: Knobs, onCancel: () => void): ReadableStream<Uint8Array> {
  const [head, tail] =
    api === "messages"
      ? [`{"id":"msg_knob","type":"message","role":"assistant","model":"${model}","content":[{"type":"text","text":"`, `"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":${k.inputTokens},"output_tokens":1}}`]
      : api === "chat"
        ? [`{"id":"chatcmpl-knob","object":"chat.completion","created":1,"model":"${model}","choices":[{"index":0,"message":{"role":"assistant","content":"`, `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":${k.inputTokens},"completion_tokens":1,"total_tokens":${k.inputTokens + 1}}}`]
        : [`{"id":"resp_knob","object":"response","created_at":1,"status":"completed","model":"${model}","output":[{"id":"msg_knob","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"`, `"}]}],"usage":{"input_tokens":${k.inputTokens},"output_tokens":1,"total_tokens":${k.inputTokens + 1}}}`];
  const piece = encoder.encode("a".repeat(MIB));
  let left = bytes;
  let started = false;
  return new ReadableStream<Uint8Array>({
    cancel: onCancel,
    pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(head));
        return;
      }
      if (left <= 0) {
        controller.enqueue(encoder.encode(tail));
        controller.close();
        return;
      }
      const n = Math.min(left, piece.length);
      controller.enqueue(n === piece.length ? piece : piece.subarray(0, n));
      left -= n;
    },
  });
}

function smallAnswer(api: Api, model: string, k: Knobs): object {
  const text = WORD.repeat(k.words);
  if (api === "messages") return { id: "msg_knob", type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: k.inputTokens, output_tokens: k.words } };
  if (api === "chat") return { id: "chatcmpl-knob", object: "chat.completion", created: 1, model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { prompt_tokens: k.inputTokens, completion_tokens: k.words, total_tokens: k.inputTokens + k.words } };
  return { id: "resp_knob", object: "response", created_at: 1, status: "completed", model, output: [{ id: "msg_knob", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }], usage: { input_tokens: k.inputTokens, output_tokens: k.words, total_tokens: k.inputTokens + k.words } };
}

/** A count that can be awaited. */
function counter() {
  let value = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  return {
    get value() {
      return value;
    },
    add(): void {
      value++;
      for (const waiter of [...waiters]) {
        if (value < waiter.count) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    wait: (count: number): Promise<void> => (value >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
  };
}

export function startKnobUpstream(): KnobUpstream {
  const arrived = counter();
  const gone = counter();
  const goneIds = new Set<string>();
  const idWaiters = new Map<string, () => void>();
  const noteGone = (id?: string): void => {
    gone.add();
    if (id === undefined) return;
    goneIds.add(id);
    idWaiters.get(id)?.();
  };

  const stream = (api: Api, events: string[], k: Knobs, signal: AbortSignal): ReadableStream<Uint8Array> => {
    let finished = false;
    const sleep = (ms: number) => new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    return new ReadableStream<Uint8Array>({
      async start(controller) {
        signal.addEventListener("abort", () => void (finished || noteGone(k.id)), { once: true });
        let batch = "";
        const put = (text: string): void => {
          if (k.oneChunk) batch += text;
          else controller.enqueue(encoder.encode(text));
        };
        for (let i = 0; i < events.length; i++) {
          if (signal.aborted) return;
          if ((i === k.cutAfter || i === k.stallAfter || i === k.pauseAfter) && batch !== "") {
            controller.enqueue(encoder.encode(batch));
            batch = "";
          }
          if (i === k.cutAfter) {
            await Bun.sleep(20);
            finished = true;
            controller.error();
            return;
          }
          if (i === k.stallAfter) {
            await sleep(3_600_000);
            return;
          }
          if (i === k.pauseAfter) await sleep(k.pauseMs);
          if (i === k.errorAt || i === k.failedAt) {
            put(errorEvent(api, i, i === k.failedAt));
            break;
          }
          let event = events[i]!;
          if (i === k.truncateAt) {
            put(event.slice(0, Math.floor(event.length / 2)));
            break;
          }
          if (i === k.malformedAt) event = `${event.startsWith("event:") ? event.slice(0, event.indexOf("\n") + 1) : ""}data: ${GARBAGE[k.garbage] ?? GARBAGE.brace}\n\n`;
          put(event);
          if (i === 0 && k.lineBytes !== undefined) {
            controller.enqueue(encoder.encode('data: {"type":"content_block_delta","text":"'));
            const piece = encoder.encode("a".repeat(MIB));
            for (let left = k.lineBytes; left > 0 && !signal.aborted; left -= piece.length) {
              controller.enqueue(left >= piece.length ? piece : piece.subarray(0, left));
              await Bun.sleep(0);
            }
          }
        }
        if (batch !== "") controller.enqueue(encoder.encode(batch));
        if (k.closeAfterMs > 0) await sleep(k.closeAfterMs);
        finished = true;
        controller.close();
      },
    });
  };

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const api: Api | undefined = path === "/v1/messages" ? "messages" : path === "/v1/chat/completions" ? "chat" : path === "/v1/responses" ? "responses" : undefined;
      if (!api) return new Response("not found", { status: 404 });
      const { knobs, stream: streamed, includeUsage, model } = requestFacts((await request.json()) as Record<string, unknown>);
      arrived.add();
      if (knobs.delayMs > 0) {
        const left = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), knobs.delayMs);
          request.signal.addEventListener(
            "abort",
            () => {
              clearTimeout(timer);
              resolve(true);
            },
            { once: true },
          );
        });
        if (left) {
          noteGone(knobs.id);
          return new Response(null, { status: 499 });
        }
      }
      if (!streamed) {
        if (knobs.bodyBytes !== undefined) return new Response(bigAnswer(api, model, knobs.bodyBytes, knobs, () => noteGone(knobs.id)), { headers: { "content-type": "application/json" } });
        return Response.json(smallAnswer(api, model, knobs));
      }
      const events = api === "messages" ? messagesEvents(model, knobs) : api === "chat" ? chatEvents(model, knobs, includeUsage) : responsesEvents(model, knobs);
      return new Response(stream(api, events, knobs, request.signal), { headers: { "content-type": "text/event-stream; charset=utf-8" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    server,
    get arrived() {
      return arrived.value;
    },
    waitArrived: arrived.wait,
    get gone() {
      return gone.value;
    },
    waitGone: gone.wait,
    waitGoneId: (id) => (goneIds.has(id) ? Promise.resolve() : new Promise<void>((resolve) => idWaiters.set(id, resolve))),
    stop: () => void server.stop(true),
  };
}

/** A client format the gateway is called in. */
export type KnobFormat = "messages" | "chat" | "responses";
export const KNOB_FORMATS: readonly KnobFormat[] = ["messages", "chat", "responses"];
/** Each format's gateway endpoint. */
export const KNOB_PATHS: Readonly<Record<KnobFormat, string>> = { messages: "/v1/messages", chat: "/v1/chat/completions", responses: "/v1/responses" };

/** A one-message request of `format` on `tier` whose text carries the knobs (Messages asks for 256 tokens at most). */
export function knobRequest(format: KnobFormat, tier: string, text: string, stream = true): object {
  if (format === "messages") return { model: tier, max_tokens: 256, stream, messages: [{ role: "user", content: text }] };
  if (format === "chat") return { model: tier, stream, messages: [{ role: "user", content: text }] };
  return { model: tier, stream, input: text };
}

/** The same tier pools as the built-in config, on the knob upstream: fast speaks Chat, normal Messages, smart Responses. */
export const KNOB_TIER_API = { fast: "chat", normal: "messages", smart: "responses" } as const;

/** The config of a gateway whose fast, normal and smart tiers each have one model on the knob upstream (no cache, no rules). */
export function knobConfig(baseUrl: string, server: FileConfig["server"] = {}): FileConfig {
  const base = DEFAULT_CONFIG.models["sim-fast"]!;
  const model = (api: Api) => ({ ...base, provider: "knob", upstreamId: `knob-${api}`, apis: [api], faults: undefined });
  return {
    ...DEFAULT_CONFIG,
    providers: { knob: { kind: "sim", baseUrl } },
    models: { "knob-chat": model("chat"), "knob-messages": model("messages"), "knob-responses": model("responses") },
    tiers: {
      ...DEFAULT_CONFIG.tiers,
      fast: { ...DEFAULT_CONFIG.tiers.fast, models: ["knob-chat"] },
      normal: { ...DEFAULT_CONFIG.tiers.normal, models: ["knob-messages"] },
      smart: { ...DEFAULT_CONFIG.tiers.smart, models: ["knob-responses"] },
      "smart-plus": { ...DEFAULT_CONFIG.tiers["smart-plus"], models: ["knob-responses"] },
    },
    responseCache: { enabled: false },
    routing: { ...DEFAULT_CONFIG.routing, rules: [], breaker: { failureThreshold: 1_000_000, coolDownMs: 1_000 } },
    server,
  };
}
