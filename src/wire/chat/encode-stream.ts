import { gatewayErrorOf, type GatewayError } from "../../canonical/gateway-error.ts";
import type { StreamError, StreamEvent } from "../../canonical/stream-event.ts";
import type { EncodeContext, StreamEncoder } from "../client-format.ts";
import { needsJsonEscape, quoteJsonString } from "../quote-json-string.ts";
import { appendEncoded } from "../append-step.ts";
import { encodeChatStreamError } from "./encode-stream-error.ts";
import { showAnswerId } from "../show-answer-id.ts";
import { encodeChatStopReason } from "./map-stop-reason.ts";
import { encodeChatUsage } from "./map-usage.ts";
import type { ChatDelta, ChatFinishReason } from "./shapes.ts";

export interface ChatStreamState {
  readonly ctx: EncodeContext;
  readonly id: string;
  /** Every chunk's JSON up to its `delta` (it depends only on the id and the context). */
  readonly head: string;
  readonly started: boolean;
  /** Canonical block index → Chat `tool_calls[].index`, for tool-call blocks only. */
  readonly toolIndexes: ReadonlyMap<number, number>;
  /** After `finish` or `error` nothing more is written. */
  readonly ended: boolean;
}


const asGatewayError = (error: StreamError): GatewayError => gatewayErrorOf(error.status, error.type, error.message);

const frame = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

/** The opening of every chunk of this stream, key order as the API writes it. */
const chunkHead = (ctx: EncodeContext, id: string): string =>
  `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(ctx.created)},"model":${JSON.stringify(ctx.model)},"system_fingerprint":null,"choices":[{"index":0,"delta":`;

/**
 * One chunk with a single choice; `usage: null` on every chunk but the last when usage was asked
 * for, as the API does. Streams are mostly small deltas, so only the delta is serialised per chunk:
 * the rest is the same text every time.
 */
function chunk(state: ChatStreamState, delta: ChatDelta, finishReason: ChatFinishReason | null = null): string {
  return chunkOf(state, JSON.stringify(delta), finishReason);
}

/** The same, with the delta already written as JSON (the text deltas, written directly). */
function chunkOf(state: ChatStreamState, delta: string, finishReason: ChatFinishReason | null = null): string {
  const finish = finishReason === null ? "null" : JSON.stringify(finishReason);
  return `data: ${state.head}${delta},"logprobs":null,"finish_reason":${finish}}]${state.ctx.includeUsage ? ',"usage":null' : ""}}\n\n`;
}

const PLACEHOLDER_ID = "chatcmpl-routelane";
const ROLE_DELTA: ChatDelta = { role: "assistant", content: "", refusal: null };

/** The role chunk, written first; events that arrive before `start` still get it (with a placeholder id). */
function ensureStarted(state: ChatStreamState): readonly [ChatStreamState, string] {
  if (state.started) return [state, ""];
  const next = { ...state, started: true };
  return [next, chunk(next, ROLE_DELTA)];
}

function finish(state: ChatStreamState, event: Extract<StreamEvent, { type: "finish" }>): string {
  let out = chunk(state, {}, encodeChatStopReason(event.stopReason));
  if (state.ctx.includeUsage) {
    out += frame({
      id: state.id,
      object: "chat.completion.chunk",
      created: state.ctx.created,
      model: state.ctx.model,
      system_fingerprint: null,
      choices: [],
      usage: encodeChatUsage(event.usage),
    });
  }
  return `${out}data: [DONE]\n\n`;
}

function stepContent(state: ChatStreamState, event: StreamEvent): readonly [ChatStreamState, string] {
  switch (event.type) {
    case "block_start": {
      if (event.block.type !== "tool_call") return [state, ""];
      const index = state.toolIndexes.size;
      const toolIndexes = new Map(state.toolIndexes).set(event.index, index);
      const call = { index, id: event.block.id, type: "function" as const, function: { name: event.block.name, arguments: "" } };
      return [{ ...state, toolIndexes }, chunk(state, { tool_calls: [call] })];
    }
    case "text_delta":
      return [state, event.text === "" ? "" : chunkOf(state, `{"content":${quoteJsonString(event.text)}}`)];
    case "thinking_delta":
      return [state, event.text === "" ? "" : chunkOf(state, `{"reasoning_content":${quoteJsonString(event.text)}}`)];
    case "tool_args_delta": {
      const index = state.toolIndexes.get(event.index);
      if (index === undefined || event.fragment === "") return [state, ""];
      return [state, chunkOf(state, `{"tool_calls":[{"index":${index},"function":{"arguments":${quoteJsonString(event.fragment)}}}]}`)];
    }
    default:
      // Signatures and block stops have no Chat form.
      return [state, ""];
  }
}

/** The delta's key, written up to its value. */
const CONTENT = '{"content":';
const REASONING = '{"reasoning_content":';
/** What follows a delta's value: the choice's other members, and `usage` when it was asked for. */
const DELTA_TAIL = '},"logprobs":null,"finish_reason":null}]}\n\n';
const DELTA_TAIL_USAGE = '},"logprobs":null,"finish_reason":null}],"usage":null}\n\n';

/** A text delta's chunk, as `chunkOf` writes it, its pieces appended to `out` as they are: a plain text is not even copied. */
function textInto(state: ChatStreamState, key: string, text: string, out: string[]): void {
  if (text === "") return;
  const tail = state.ctx.includeUsage ? DELTA_TAIL_USAGE : DELTA_TAIL;
  out.push("data: ", state.head, key);
  if (needsJsonEscape(text)) out.push(JSON.stringify(text), tail);
  else out.push('"', text, '"', tail);
}

function step(state: ChatStreamState, event: StreamEvent): readonly [ChatStreamState, string] {
  if (state.ended) return [state, ""];
  if (event.type === "error") return [{ ...state, ended: true }, encodeChatStreamError(asGatewayError(event.error))];
  if (event.type === "start") {
    if (state.started) return [state, ""];
    const id = showAnswerId("chat", event.id);
    const next = { ...state, id, head: chunkHead(state.ctx, id), started: true };
    return [next, chunk(next, ROLE_DELTA)];
  }
  const [started, head] = ensureStarted(state);
  if (event.type === "finish") return [{ ...started, ended: true }, head + finish(started, event)];
  const [next, body] = stepContent(started, event);
  return [next, head + body];
}

/**
 * Canonical stream → Chat Completions SSE: the role chunk, content / `reasoning_content` /
 * tool-call deltas (id and name on a call's first chunk, then `function.arguments` fragments as
 * they come), the finish chunk, the `choices: []` usage chunk when asked for, and `[DONE]`.
 * An error becomes the format's error chunk and no `[DONE]` follows, so clients see a failure.
 */
export const chatStreamEncoder: StreamEncoder<ChatStreamState> = {
  initial: (ctx) => ({ ctx, id: PLACEHOLDER_ID, head: chunkHead(ctx, PLACEHOLDER_ID), started: false, toolIndexes: new Map(), ended: false }),
  step,
  stepInto(state, event, out) {
    // A text or reasoning delta of a started stream (nearly every event of a long answer) goes out in pieces.
    if (state.started && !state.ended) {
      if (event.type === "text_delta") {
        textInto(state, CONTENT, event.text, out);
        return state;
      }
      if (event.type === "thinking_delta") {
        textInto(state, REASONING, event.text, out);
        return state;
      }
    }
    return appendEncoded(step, state, event, out);
  },
};
