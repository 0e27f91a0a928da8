import type { Usage } from "../../canonical/usage.ts";
import type { WireFormat } from "../../canonical/wire-format.ts";
import { decodeChatUsage } from "../../wire/chat/map-usage.ts";
import { decodeMessagesUsage } from "../../wire/messages/map-usage.ts";
import { decodeResponsesUsage } from "../../wire/responses/map-usage.ts";
import { upstreamErrorMessage } from "../classify-upstream-error.ts";
import { createTextTally, type TextTally } from "../sse/create-text-tally.ts";
import { fromLatin1 } from "./for-each-event.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/**
 * What to do with one upstream event: pass it on; hide it (the Chat usage chunk the client did not
 * ask for, a repeated Messages `message_start`); pass it as the possible end (a terminal event: `message_stop`, `[DONE]`,
 * `response.completed`: the stream ends there unless more follows, as another message of a
 * Messages stream does); or stop the stream at it: before it when it is malformed or a content
 * filter's ending, after it when it is the upstream's own error event.
 */
export type Verdict = "pass" | "hide" | "stopped" | "malformed" | "filtered" | "failed";

export interface EventInspector {
  step(name: string | undefined, data: string): Verdict;
  /** The usage the upstream reported for the whole answer, once it has. */
  readonly usage: Usage | undefined;
  /** What the upstream said at the start (Messages `message_start`: the input tokens). */
  readonly startUsage: Usage | undefined;
  /** The message of the upstream's error event, after a `failed` verdict. */
  readonly failure: string | undefined;
  /** The text passed on so far, counted. */
  readonly text: TextTally;
  /** The last event was a terminal one (Messages: a message has stopped and no other has started): the stream may end here. */
  readonly between: boolean;
  /**
   * After a step: the data to send in place of that event (read as Latin-1, like the event), when
   * clients could not read it as it came; undefined to send it as it came.
   */
  readonly replacement: string | undefined;
}

const parse = (data: string): JsonObject | undefined => {
  try {
    const value: unknown = JSON.parse(data);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

const str = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * Reads each event of a same-format stream once, as it passes: every event is checked to be JSON
 * (a malformed one must never reach the client), and the few fields the gateway needs are read from
 * it: the terminal event, a filter's ending, the usage, the text for counting.
 */
export function createEventInspector(format: WireFormat, hideUsageChunk: boolean): EventInspector {
  const state: State = {};
  // Event data is read as Latin-1 (see forEachEvent): the text is counted as the UTF-8 it is.
  const text = createTextTally(fromLatin1);
  const failed = (event: JsonObject): Verdict => {
    const message = upstreamErrorMessage(event) ?? upstreamErrorMessage(event.response);
    state.failure = message === undefined ? "upstream sent an error event" : fromLatin1(message);
    return "failed";
  };
  const steps: Record<WireFormat, (name: string | undefined, event: JsonObject) => Verdict> = {
    messages: (name, event) => messagesStep(name, event, state, text, failed),
    chat: (name, event) => chatStep(name, event, state, text, failed, hideUsageChunk),
    responses: (name, event) => responsesStep(name, event, state, text, failed),
  };
  const step = steps[format];
  return {
    step(name, data) {
      state.replacement = undefined;
      if (format === "chat" && data === "[DONE]") {
        state.between = true;
        return "stopped";
      }
      const event = parse(data);
      if (event === undefined) return "malformed";
      const verdict = step(name, event);
      // Whatever follows a terminal event (a recording holds two answers) means the stream goes on.
      if (format !== "messages" && verdict !== "stopped") state.between = false;
      return verdict;
    },
    get usage() {
      // Messages: the answer's usage is known once it has ended after its last message, each of
      // whose final counts was reported.
      if (format === "messages") return state.between && !state.unreported ? state.spent : undefined;
      return state.usage;
    },
    get startUsage() {
      return state.startUsage;
    },
    get failure() {
      return state.failure;
    },
    get between() {
      return state.between === true;
    },
    get replacement() {
      return state.replacement;
    },
    text,
  };
}

interface State {
  usage?: Usage;
  startUsage?: Usage;
  failure?: string;
  /** Messages: see EventInspector.between. */
  between?: boolean;
  /** Messages: the open message's usage at its start, and as its `message_delta` reported it. */
  messageStart?: Usage;
  messageUsage?: Usage;
  /** Messages: the usage of the messages stopped so far, and whether one of them never reported it. */
  spent?: Usage;
  unreported?: boolean;
  /** Messages: the id of the message started and not yet stopped. */
  open?: string;
  /** Responses: the id the response started with, and each output item's id as it was added, by output index. */
  responseId?: string;
  itemIds?: Map<number, string>;
  /** See EventInspector.replacement. */
  replacement?: string;
}

const maxUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: Math.max(a.inputTokens, b.inputTokens),
  outputTokens: Math.max(a.outputTokens, b.outputTokens),
  cacheReadTokens: Math.max(a.cacheReadTokens, b.cacheReadTokens),
  cacheWriteTokens: Math.max(a.cacheWriteTokens, b.cacheWriteTokens),
  reasoningTokens: Math.max(a.reasoningTokens, b.reasoningTokens),
});

const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  reasoningTokens: a.reasoningTokens + b.reasoningTokens,
});
type Fail = (event: JsonObject) => Verdict;

/** Messages events that belong to a message: after a `message_stop`, one of them means the stream goes on. */
const MESSAGE_EVENTS: ReadonlySet<unknown> = new Set(["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta"]);

/**
 * Messages. A stream may carry several messages (programmatic tool calling), and the API closes it
 * right after its last `message_stop`: a `message_stop` is the end only if nothing follows it.
 */
function messagesStep(name: string | undefined, event: JsonObject, state: State, text: TextTally, failed: Fail): Verdict {
  if (MESSAGE_EVENTS.has(event.type)) state.between = false;
  switch (event.type) {
    case "content_block_delta": {
      const delta = event.delta;
      if (isJsonObject(delta)) {
        const piece = str(delta.text) ?? str(delta.thinking) ?? str(delta.partial_json);
        if (piece) text.add(piece);
      }
      return "pass";
    }
    case "content_block_start": {
      const block = event.content_block;
      if (isJsonObject(block)) {
        const piece = str(block.text) ?? str(block.thinking) ?? str(block.name);
        if (piece) text.add(piece);
      }
      return "pass";
    }
    case "message_start": {
      const message = isJsonObject(event.message) ? event.message : {};
      const id = str(message.id);
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
      return failed(event);
    default:
      return name === "error" ? failed(event) : "pass";
  }
}

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

function chatStep(name: string | undefined, event: JsonObject, state: State, text: TextTally, failed: Fail, hideUsageChunk: boolean): Verdict {
  if (name === "error" || ("error" in event && event.error !== null && event.error !== undefined)) return failed(event);
  const choices = event.choices;
  let filtered = false;
  if (Array.isArray(choices)) {
    for (const choice of choices) {
      if (!isJsonObject(choice)) continue;
      if (choice.finish_reason === "content_filter") filtered = true;
      const delta = choice.delta;
      if (!isJsonObject(delta)) continue;
      const piece = str(delta.content) ?? str(delta.reasoning_content) ?? str(delta.reasoning) ?? str(delta.refusal);
      if (piece) text.add(piece);
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) {
          const fn = isJsonObject(call) ? call.function : undefined;
          if (!isJsonObject(fn)) continue;
          const callName = str(fn.name);
          const args = str(fn.arguments);
          if (callName) text.add(callName);
          if (args) text.add(args);
        }
      }
    }
  }
  if (filtered) return "filtered";
  if (isJsonObject(event.usage)) {
    state.usage = decodeChatUsage(event.usage);
    if (hideUsageChunk && Array.isArray(choices) && choices.length === 0) return "hide";
  }
  return "pass";
}

/** Responses events that carry the response itself, each naming its id. */
const LIFECYCLE: ReadonlySet<string> = new Set(["response.created", "response.queued", "response.in_progress", "response.completed", "response.incomplete", "response.failed"]);

/**
 * Keeps the ids of one response the same from event to event. Some upstreams (GitHub Copilot)
 * give the response a new id in every lifecycle event and an output item a new id in every event
 * about it; the official SDK then stops ("Lifecycle response identity changed") and the AI SDK
 * loses the item. Those ids are set back to the response's first and the item's first (from
 * `response.output_item.added`, by output index); the final output's ids are left as they came.
 * A new `response.created` starts a new response. Returns whether `event` was changed.
 */
function pinIds(type: string, event: JsonObject, state: State): boolean {
  if (LIFECYCLE.has(type)) {
    const response = event.response;
    if (!isJsonObject(response) || typeof response.id !== "string") return false;
    if (type === "response.created" || state.responseId === undefined) {
      state.responseId = response.id;
      state.itemIds = undefined;
      return false;
    }
    if (response.id === state.responseId) return false;
    response.id = state.responseId;
    return true;
  }
  const index = event.output_index;
  if (typeof index !== "number") return false;
  const item = isJsonObject(event.item) ? event.item : undefined;
  if (type === "response.output_item.added") {
    if (typeof item?.id === "string") (state.itemIds ??= new Map()).set(index, item.id);
    return false;
  }
  const pinned = state.itemIds?.get(index);
  if (pinned === undefined) return false;
  if (item !== undefined && typeof item.id === "string" && item.id !== pinned) {
    item.id = pinned;
    return true;
  }
  if (typeof event.item_id === "string" && event.item_id !== pinned) {
    event.item_id = pinned;
    return true;
  }
  return false;
}

function responsesStep(name: string | undefined, event: JsonObject, state: State, text: TextTally, failed: Fail): Verdict {
  const type = event.type;
  if (typeof type !== "string") return name === "error" ? failed(event) : "malformed";
  if (pinIds(type, event, state)) state.replacement = JSON.stringify(event);
  if (type.endsWith(".delta")) {
    const piece = str(event.delta);
    if (piece) text.add(piece);
    return "pass";
  }
  const response = event.response;
  switch (type) {
    case "response.completed":
      if (isJsonObject(response) && isJsonObject(response.usage)) state.usage = decodeResponsesUsage(response.usage);
      state.between = true;
      return "stopped";
    case "response.incomplete": {
      if (isJsonObject(response) && isJsonObject(response.usage)) state.usage = decodeResponsesUsage(response.usage);
      const details = isJsonObject(response) ? response.incomplete_details : undefined;
      if (isJsonObject(details) && details.reason === "content_filter") return "filtered";
      state.between = true;
      return "stopped";
    }
    case "response.failed":
      if (isJsonObject(response) && isJsonObject(response.usage)) state.usage = decodeResponsesUsage(response.usage);
      return failed(event);
    case "error":
      return failed(event);
    default:
      return "pass";
  }
}
