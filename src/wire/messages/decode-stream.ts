import type { GatewayErrorType } from "../../canonical/gateway-error.ts";
import type { StopReason } from "../../canonical/stop-reason.ts";
import type { StreamEvent } from "../../canonical/stream-event.ts";
import { addUsage, ZERO_USAGE, type Usage } from "../../canonical/usage.ts";
import { decodeMessagesStopReason } from "./map-stop-reason.ts";
import { decodeMessagesUsage } from "./map-usage.ts";
import type { StreamDecoder } from "../upstream-adapter.ts";
import type { SseEvent } from "../sse-event.ts";
import { appendDecoded } from "../append-step.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { readBlockDelta, type BlockDelta } from "./read-block-delta.ts";
import { type BlockDeltaBox, readBlockDeltaEvent } from "./read-block-delta-event.ts";

export interface MessagesDecodeState {
  /** `between`: a message has stopped and another may follow in the same stream. */
  readonly phase: "before" | "open" | "between" | "done";
  /** The open message's id: a repeated `message_start` of it is ignored, another one while it is open is malformed. */
  readonly messageId: string;
  /** Upstream block index (of the open message) → canonical index; null for blocks with no canonical place (server tools), whose events are skipped. */
  readonly blocks: ReadonlyMap<number, number | null>;
  /** Canonical blocks started and not yet stopped. */
  readonly open: ReadonlySet<number>;
  /** Canonical blocks started so far: the next one's index. */
  readonly started: number;
  /** The open message's usage, as its events report it (cumulative within the message). */
  readonly usage: Usage;
  /** The usage of the messages already stopped in this stream: each was billed on its own. */
  readonly spent: Usage;
  /** Whether the open message's `message_delta` reported its usage (without one, only `message_start`'s is known). */
  readonly reported?: boolean;
  /** A stopped message never reported its final usage: the answer's output is not known. */
  readonly unreported?: boolean;
  readonly stop: StopReason | null;
}

type Step = readonly [MessagesDecodeState, readonly StreamEvent[]];

/** Messages error types → the gateway's status and type for an in-stream failure. */
const UPSTREAM_ERRORS: Readonly<Record<string, readonly [number, GatewayErrorType]>> = {
  invalid_request_error: [400, "invalid_request_error"],
  not_found_error: [404, "not_found_error"],
  request_too_large: [413, "request_too_large"],
  rate_limit_error: [429, "rate_limit_error"],
  overloaded_error: [529, "overloaded_error"],
  timeout_error: [504, "timeout_error"],
  api_error: [502, "api_error"],
};

function fail(state: MessagesDecodeState, status: number, type: string, message: string): Step {
  return [{ ...state, phase: "done" }, [{ type: "error", error: { status, type, message } }]];
}

const malformed = (state: MessagesDecodeState, what: string): Step => fail(state, 502, "upstream_error", `upstream sent a malformed Messages stream: ${what}`);

function upstreamError(state: MessagesDecodeState, data: JsonObject): Step {
  const error = isJsonObject(data.error) ? data.error : {};
  const [status, type] = (typeof error.type === "string" ? UPSTREAM_ERRORS[error.type] : undefined) ?? [502, "upstream_error"];
  const message = typeof error.message === "string" && error.message !== "" ? error.message : "upstream stream failed";
  return fail(state, status, type, `upstream: ${message}`);
}

/**
 * A message starts. The first one starts the answer; one after a `message_stop` continues it (a
 * stream may carry several messages, as programmatic tool calling does), its blocks numbered on.
 * Content the start already holds (a prepopulated `tool_use`) is opened and closed at once.
 */
function onMessageStart(state: MessagesDecodeState, data: JsonObject): Step {
  const message = isJsonObject(data.message) ? data.message : null;
  if (!message || typeof message.id !== "string") return malformed(state, "message_start without a message id");
  if (state.phase === "open") return message.id === state.messageId ? [state, []] : malformed(state, "a message_start while another message was open");
  const usage = decodeMessagesUsage(message.usage);
  const stop = typeof message.stop_reason === "string" ? decodeMessagesStopReason(message.stop_reason, message.stop_sequence) : state.stop;
  const opened: MessagesDecodeState = { ...state, phase: "open", messageId: message.id, blocks: new Map(), usage, stop, reported: false };
  const model = typeof message.model === "string" ? message.model : "";
  const start: StreamEvent[] = state.phase === "before" ? [{ type: "start", id: message.id, model, usage }] : [];
  return prepopulated(opened, Array.isArray(message.content) ? message.content : [], start);
}

function prepopulated(state: MessagesDecodeState, content: readonly unknown[], events: StreamEvent[]): Step {
  let next = state;
  for (const block of content) {
    if (!isJsonObject(block)) continue;
    const opened = openBlock(next.started, block);
    if (opened === null) return malformed(next, `an incomplete ${String(block.type)} block`);
    if (opened.length === 0) continue;
    events.push(...opened, { type: "block_stop", index: next.started });
    next = { ...next, started: next.started + 1 };
  }
  return [next, events];
}

/** The canonical events that open a block, plus whatever content the start already carries. */
function openBlock(index: number, block: JsonObject): StreamEvent[] | null {
  switch (block.type) {
    case "text": {
      const text = typeof block.text === "string" ? block.text : "";
      return [{ type: "block_start", index, block: { type: "text" } }, ...(text ? [{ type: "text_delta" as const, index, text }] : [])];
    }
    case "thinking": {
      const text = typeof block.thinking === "string" ? block.thinking : "";
      const signature = typeof block.signature === "string" ? block.signature : "";
      return [
        { type: "block_start", index, block: { type: "thinking" } },
        ...(text ? [{ type: "thinking_delta" as const, index, text }] : []),
        ...(signature ? [{ type: "signature_delta" as const, index, signature }] : []),
      ];
    }
    case "redacted_thinking":
      return typeof block.data === "string" ? [{ type: "block_start", index, block: { type: "redacted_thinking", data: block.data } }] : null;
    case "tool_use": {
      if (typeof block.id !== "string" || typeof block.name !== "string") return null;
      // Arguments normally stream as input_json_delta; an input given whole at the start is one fragment.
      const given = isJsonObject(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "";
      return [
        { type: "block_start", index, block: { type: "tool_call", id: block.id, name: block.name } },
        ...(given ? [{ type: "tool_args_delta" as const, index, fragment: given }] : []),
      ];
    }
    default:
      return [];
  }
}

function onBlockStart(state: MessagesDecodeState, data: JsonObject): Step {
  if (typeof data.index !== "number" || !isJsonObject(data.content_block) || state.blocks.has(data.index)) {
    return malformed(state, "a content_block_start without a new index or block");
  }
  const index = state.started;
  const events = openBlock(index, data.content_block);
  if (events === null) return malformed(state, `an incomplete ${String(data.content_block.type)} block`);
  if (events.length === 0) return [{ ...state, blocks: new Map(state.blocks).set(data.index, null) }, []];
  const blocks = new Map(state.blocks).set(data.index, index);
  return [{ ...state, blocks, open: new Set(state.open).add(index), started: index + 1 }, events];
}

function deltaEvent(index: number, delta: JsonObject): StreamEvent | null | undefined {
  switch (delta.type) {
    case "text_delta":
      return typeof delta.text === "string" ? { type: "text_delta", index, text: delta.text } : undefined;
    case "input_json_delta":
      if (typeof delta.partial_json !== "string") return undefined;
      return delta.partial_json === "" ? null : { type: "tool_args_delta", index, fragment: delta.partial_json };
    case "thinking_delta":
      return typeof delta.thinking === "string" ? { type: "thinking_delta", index, text: delta.thinking } : undefined;
    case "signature_delta":
      return typeof delta.signature === "string" ? { type: "signature_delta", index, signature: delta.signature } : undefined;
    default:
      // citations_delta and delta types added later have no canonical place.
      return null;
  }
}

function onBlockDelta(state: MessagesDecodeState, data: JsonObject): Step {
  const index = typeof data.index === "number" ? state.blocks.get(data.index) : undefined;
  if (index === undefined || !isJsonObject(data.delta)) return malformed(state, "a content_block_delta for no started block");
  if (index === null) return [state, []];
  const event = deltaEvent(index, data.delta);
  if (event === undefined) return malformed(state, `a ${String(data.delta.type)} without its value`);
  return [state, event ? [event] : []];
}

/** A delta `readBlockDelta` read, as `deltaEvent` gives it from the parsed event. */
function readDeltaEvent(index: number, delta: BlockDelta): StreamEvent | null {
  switch (delta.kind) {
    case "text":
      return { type: "text_delta", index, text: delta.text };
    case "tool_args":
      return delta.text === "" ? null : { type: "tool_args_delta", index, fragment: delta.text };
    case "thinking":
      return { type: "thinking_delta", index, text: delta.text };
    default: {
      const unknownKind: never = delta.kind;
      return unknownKind;
    }
  }
}

function onBlockStop(state: MessagesDecodeState, data: JsonObject): Step {
  const index = typeof data.index === "number" ? state.blocks.get(data.index) : undefined;
  if (index === undefined) return malformed(state, "a content_block_stop for no started block");
  if (index === null || !state.open.has(index)) return [state, []];
  const open = new Set(state.open);
  open.delete(index);
  return [{ ...state, open }, [{ type: "block_stop", index }]];
}

function onMessageDelta(state: MessagesDecodeState, data: JsonObject): Step {
  const delta = isJsonObject(data.delta) ? data.delta : {};
  // Usage in message_delta is cumulative: it replaces, field by field, what message_start said.
  const usage = decodeMessagesUsage(data.usage, state.usage);
  const stop = delta.stop_reason === undefined || delta.stop_reason === null ? state.stop : decodeMessagesStopReason(delta.stop_reason, delta.stop_sequence);
  return [{ ...state, usage, stop, ...(isJsonObject(data.usage) ? { reported: true } : {}) }, []];
}

/** A message stops: its blocks close, its usage is counted; the answer finishes when the stream ends. */
function onMessageStop(state: MessagesDecodeState): Step {
  const stops: StreamEvent[] = [...state.open].map((index) => ({ type: "block_stop", index }));
  const unreported = state.unreported === true || state.reported !== true;
  return [{ ...state, phase: "between", open: new Set(), spent: addUsage(state.spent, state.usage), usage: ZERO_USAGE, unreported }, stops];
}

function dispatch(state: MessagesDecodeState, type: string, data: JsonObject): Step {
  if (type === "ping") return [state, []];
  if (type === "error") return upstreamError(state, data);
  if (type === "message_start") return onMessageStart(state, data);
  if (state.phase === "before") return malformed(state, `${type} before message_start`);
  if (state.phase === "between") return malformed(state, `${type} after message_stop`);
  switch (type) {
    case "content_block_start":
      return onBlockStart(state, data);
    case "content_block_delta":
      return onBlockDelta(state, data);
    case "content_block_stop":
      return onBlockStop(state, data);
    case "message_delta":
      return onMessageDelta(state, data);
    case "message_stop":
      return onMessageStop(state);
    default:
      // The API adds event types over time; unknown ones are skipped, as the SDKs do.
      return [state, []];
  }
}

function parse(data: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(data);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** Any event but a started block's delta: parsed, and handed to its type's step. */
function stepParsed(state: MessagesDecodeState, event: SseEvent): readonly [MessagesDecodeState, readonly StreamEvent[]] {
  const data = parse(event.data);
  const type = typeof data?.type === "string" ? data.type : event.event;
  if (!data || type === undefined) return malformed(state, "an event whose data is not a JSON object with a type");
  return dispatch(state, type, data);
}

/**
 * The bulk of a stream, a delta of a started block, read without a parse: its canonical event, or
 * null when it has none; undefined for any other event (it is parsed).
 */
function readOpenDelta(state: MessagesDecodeState, event: SseEvent): StreamEvent | null | undefined {
  const delta = state.phase === "open" ? readBlockDelta(event.data) : undefined;
  const index = delta === undefined ? undefined : state.blocks.get(delta.index);
  if (delta === undefined || index === undefined) return undefined;
  return index === null ? null : readDeltaEvent(index, delta);
}

/** The delta readBlockDeltaEvent read last. */
const DELTA: BlockDeltaBox = { index: 0, kind: "text", text: "" };

/**
 * Messages upstream SSE → canonical events, block indexes renumbered from 0 in start order. The
 * answer finishes when the stream ends after a `message_stop`: only then is it known that no
 * further message follows (the API closes the stream right after its last one).
 */
export const messagesStreamDecoder: StreamDecoder<MessagesDecodeState> = {
  initial: () => ({ phase: "before", messageId: "", blocks: new Map(), open: new Set(), started: 0, usage: ZERO_USAGE, spent: ZERO_USAGE, stop: null }),
  step(state, event) {
    if (state.phase === "done" || event.data === "") return [state, []];
    const fast = readOpenDelta(state, event);
    if (fast !== undefined) return [state, fast ? [fast] : []];
    return stepParsed(state, event);
  },
  stepInto(state, event, out) {
    if (state.phase === "done" || event.data === "") return state;
    // A delta goes into the list as it is read: no list or pair of its own.
    const fast = readOpenDelta(state, event);
    if (fast === undefined) return appendDecoded(stepParsed, state, event, out);
    if (fast) out.push(fast);
    return state;
  },
  // The deltas of started blocks, read from bytes: they leave the state as it is.
  stepBytes(state, bytes, at, maxEventBytes, out) {
    while (state.phase === "open" && at < bytes.length) {
      const end = readBlockDeltaEvent(bytes, at, maxEventBytes, DELTA);
      if (end < 0) break;
      const index = state.blocks.get(DELTA.index);
      // A delta for no started block is the splitter's, and found malformed there.
      if (index === undefined) break;
      const event = index === null ? null : readDeltaEvent(index, DELTA);
      if (event) out.push(event);
      at = end;
    }
    return at;
  },
  end: (state) => {
    if (state.phase === "between") {
      // Without a message's final count the output is not known: the usage says so, and the gateway counts it.
      const usage = state.unreported ? { ...state.spent, estimated: true } : state.spent;
      return [{ type: "finish", stopReason: state.stop ?? decodeMessagesStopReason(null), usage }];
    }
    return state.phase === "done" ? [] : [{ type: "error", error: { status: 502, type: "upstream_error", message: "upstream stream ended before message_stop" } }];
  },
};
