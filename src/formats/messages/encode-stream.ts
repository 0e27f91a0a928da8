import { gatewayErrorOf } from "../../canonical/gateway-error.ts";
import type { BlockStart, StreamError, StreamEvent } from "../../canonical/stream-event.ts";
import { ZERO_USAGE, type Usage } from "../../canonical/usage.ts";
import type { EncodeContext, StreamEncoder } from "../client-format.ts";
import { encodeMessagesStreamError } from "./encode-stream-error.ts";
import { stopReasonToMessages } from "./map-stop-reason.ts";
import { usageToMessages } from "./map-usage.ts";

export interface MessagesStreamState {
  readonly ctx: EncodeContext;
  readonly phase: "before" | "open" | "done";
  /** Canonical block index → Messages `index` (contiguous from 0 in start order). */
  readonly indexes: ReadonlyMap<number, number>;
  /** The Messages block currently open, if any: Messages blocks never overlap. */
  readonly current: number | null;
  /** Messages blocks already stopped. */
  readonly stopped: ReadonlySet<number>;
}

/** One event, `type` first: the data's JSON is spliced in after it rather than copied into a new object. */
function frame(event: string, data: Record<string, unknown>): string {
  const rest = JSON.stringify(data);
  return `event: ${event}\ndata: {"type":"${event}"${rest === "{}" ? "}" : `,${rest.slice(1)}`}\n\n`;
}

function startBlock(block: BlockStart): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_call":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
    default: {
      const unreachable: never = block;
      return unreachable;
    }
  }
}

function messageStart(ctx: EncodeContext, id: string, usage: Usage = ZERO_USAGE): string {
  return frame("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      // Upstreams that count only at the end show zeros here; message_delta carries the totals
      // (and the thinking count, which message_start never has).
      usage: startUsage(usage),
    },
  });
}


function startUsage(usage: Usage): Record<string, unknown> {
  const { output_tokens_details: _thinking, ...rest } = usageToMessages(usage);
  return rest;
}

function errorFrame(error: StreamError): string {
  return encodeMessagesStreamError(gatewayErrorOf(error.status, error.type, error.message));
}

/** Closes the open Messages block, if any. */
function closeCurrent(state: MessagesStreamState): readonly [MessagesStreamState, string] {
  if (state.current === null) return [state, ""];
  const stopped = new Set(state.stopped).add(state.current);
  return [{ ...state, current: null, stopped }, frame("content_block_stop", { index: state.current })];
}

function onBlockStart(state: MessagesStreamState, index: number, block: BlockStart): readonly [MessagesStreamState, string] {
  if (state.indexes.has(index)) return [state, ""];
  // A block starting while another is open (interleaved parallel calls) closes that one first:
  // Messages blocks run one after another. Late fragments of it still go to its own index, where
  // the SDKs accumulate them.
  const [closed, stopText] = closeCurrent(state);
  const wire = closed.indexes.size;
  const indexes = new Map(closed.indexes).set(index, wire);
  const next = { ...closed, indexes, current: wire };
  return [next, stopText + frame("content_block_start", { index: wire, content_block: startBlock(block) })];
}

function onBlockStop(state: MessagesStreamState, index: number): readonly [MessagesStreamState, string] {
  const wire = state.indexes.get(index);
  if (wire === undefined || state.stopped.has(wire)) return [state, ""];
  const stopped = new Set(state.stopped).add(wire);
  return [{ ...state, stopped, current: state.current === wire ? null : state.current }, frame("content_block_stop", { index: wire })];
}

function delta(state: MessagesStreamState, index: number, body: Record<string, unknown>): readonly [MessagesStreamState, string] {
  const wire = state.indexes.get(index);
  return [state, wire === undefined ? "" : frame("content_block_delta", { index: wire, delta: body })];
}

function onFinish(state: MessagesStreamState, event: Extract<StreamEvent, { type: "finish" }>): readonly [MessagesStreamState, string] {
  let text = "";
  let next = state;
  // Every started block is stopped before the message ends.
  for (const wire of state.indexes.values()) {
    if (!next.stopped.has(wire)) {
      text += frame("content_block_stop", { index: wire });
      next = { ...next, stopped: new Set(next.stopped).add(wire) };
    }
  }
  const stop = stopReasonToMessages(event.stopReason);
  // message_delta carries the counts only, as the API sends them.
  const { cache_creation: _split, service_tier: _tier, ...usage } = usageToMessages(event.usage);
  text += frame("message_delta", { delta: { ...stop, stop_details: null }, usage });
  text += frame("message_stop", {});
  return [{ ...next, current: null, phase: "done" }, text];
}

function stepOpen(state: MessagesStreamState, event: StreamEvent): readonly [MessagesStreamState, string] {
  switch (event.type) {
    case "start":
      return [state, ""];
    case "block_start":
      return onBlockStart(state, event.index, event.block);
    case "text_delta": {
      // The most frequent event, written directly: only the text is serialised.
      const wire = state.indexes.get(event.index);
      if (wire === undefined) return [state, ""];
      return [state, `event: content_block_delta\ndata: {"type":"content_block_delta","index":${wire},"delta":{"type":"text_delta","text":${JSON.stringify(event.text)}}}\n\n`];
    }
    case "thinking_delta":
      return delta(state, event.index, { type: "thinking_delta", thinking: event.text });
    case "signature_delta":
      return delta(state, event.index, { type: "signature_delta", signature: event.signature });
    case "tool_args_delta":
      return delta(state, event.index, { type: "input_json_delta", partial_json: event.fragment });
    case "block_stop":
      return onBlockStop(state, event.index);
    case "finish":
      return onFinish(state, event);
    case "error":
      return [{ ...state, phase: "done" }, errorFrame(event.error)];
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** Canonical stream events → the Messages SSE stream, event for event as the API sends it. */
export const messagesStreamEncoder: StreamEncoder<MessagesStreamState> = {
  initial: (ctx) => ({ ctx, phase: "before", indexes: new Map(), current: null, stopped: new Set() }),
  step(state, event) {
    if (state.phase === "done") return [state, ""];
    if (state.phase === "open") return stepOpen(state, event);
    if (event.type === "error") return [{ ...state, phase: "done" }, errorFrame(event.error)];
    const opened: MessagesStreamState = { ...state, phase: "open" };
    if (event.type === "start") return [opened, messageStart(state.ctx, event.id, event.usage)];
    // A stream that skipped its start still needs message_start before anything else.
    const [next, text] = stepOpen(opened, event);
    return [next, messageStart(state.ctx, "msg_gateway") + text];
  },
};
