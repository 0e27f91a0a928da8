import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { addUsage, type Usage } from "../../canonical/usage.ts";
import { type InspectContext, parseEventData, type StreamInspector, textOf, type Verdict } from "../stream-inspector.ts";
import { decodeMessagesUsage } from "./map-usage.ts";
import { readBlockDelta } from "./read-block-delta.ts";

interface State {
  startUsage?: Usage;
  /** See StreamInspector.between. */
  between?: boolean;
  /** The open message's usage at its start, and as its `message_delta` reported it. */
  messageStart?: Usage;
  messageUsage?: Usage;
  /** The usage of the messages stopped so far, and whether one of them never reported it. */
  spent?: Usage;
  unreported?: boolean;
  /** The id of the message started and not yet stopped. */
  open?: string;
}

const maxUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: Math.max(a.inputTokens, b.inputTokens),
  outputTokens: Math.max(a.outputTokens, b.outputTokens),
  cacheReadTokens: Math.max(a.cacheReadTokens, b.cacheReadTokens),
  cacheWriteTokens: Math.max(a.cacheWriteTokens, b.cacheWriteTokens),
  reasoningTokens: Math.max(a.reasoningTokens, b.reasoningTokens),
});

/** Messages events that belong to a message: after a `message_stop`, one of them means the stream goes on. */
const MESSAGE_EVENTS: ReadonlySet<unknown> = new Set(["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta"]);

/**
 * A second `message_start` of the message already open (some upstreams repeat it): the official
 * SDK refuses it, and it says nothing new, so it is not sent; the larger of each usage count it
 * and the first one carry is what the message is billed from.
 */
function repeatedStart(state: State, message: JsonObject): Verdict {
  if (isJsonObject(message.usage) && state.messageStart) {
    const merged = maxUsage(state.messageStart, decodeMessagesUsage(message.usage));
    if (state.startUsage === state.messageStart) state.startUsage = merged;
    state.messageStart = merged;
  }
  return "hide";
}

/**
 * A stream may carry several messages (programmatic tool calling), and the API closes it right
 * after its last `message_stop`: a `message_stop` is the end only if nothing follows it.
 */
function step(name: string | undefined, event: JsonObject, state: State, ctx: InspectContext): Verdict {
  if (MESSAGE_EVENTS.has(event.type)) state.between = false;
  switch (event.type) {
    case "content_block_delta": {
      const delta = event.delta;
      if (isJsonObject(delta)) {
        const piece = textOf(delta.text) ?? textOf(delta.thinking) ?? textOf(delta.partial_json);
        if (piece) ctx.addText(piece);
      }
      return "pass";
    }
    case "content_block_start": {
      const block = event.content_block;
      if (isJsonObject(block)) {
        const piece = textOf(block.text) ?? textOf(block.thinking) ?? textOf(block.name);
        if (piece) ctx.addText(piece);
      }
      return "pass";
    }
    case "message_start": {
      const message = isJsonObject(event.message) ? event.message : {};
      const id = textOf(message.id);
      if (id !== undefined && id === state.open) return repeatedStart(state, message);
      state.open = id;
      state.messageStart = decodeMessagesUsage(message.usage);
      state.messageUsage = undefined;
      // The first usage event is where the input of a stream cut short is read.
      state.startUsage ??= state.messageStart;
      return "pass";
    }
    case "message_delta":
      if (isJsonObject(event.usage)) state.messageUsage = decodeMessagesUsage(event.usage, state.messageStart);
      return "pass";
    case "message_stop": {
      state.open = undefined;
      const used = state.messageUsage ?? state.messageStart;
      if (used) state.spent = state.spent ? addUsage(state.spent, used) : used;
      if (!state.messageUsage) state.unreported = true;
      state.between = true;
      return "stopped";
    }
    case "error":
      return ctx.failed(event);
    default:
      return name === "error" ? ctx.failed(event) : "pass";
  }
}

/** Reads a Messages stream passed through (see StreamInspector). */
export function inspectMessagesStream(ctx: InspectContext): StreamInspector {
  const state: State = {};
  return {
    step(name, data) {
      // The bulk of a stream, read without a parse; everything else is parsed and judged below.
      const delta = readBlockDelta(data);
      if (delta !== undefined) {
        state.between = false;
        if (delta.text !== "") ctx.addText(delta.text);
        return "pass";
      }
      const event = parseEventData(data);
      return event === undefined ? "malformed" : step(name, event, state, ctx);
    },
    get usage() {
      // The answer's usage is known once it has ended after its last message, each of whose
      // final counts was reported.
      return state.between && !state.unreported ? state.spent : undefined;
    },
    get startUsage() {
      return state.startUsage;
    },
    get between() {
      return state.between === true;
    },
    replacement: undefined,
  };
}
