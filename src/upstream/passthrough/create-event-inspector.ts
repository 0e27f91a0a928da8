import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import type { Usage } from "../../canonical/usage.ts";
import type { WireFormat } from "../../canonical/wire-format.ts";
import { decodeChatUsage } from "../../formats/chat/map-usage.ts";
import { usageFromMessages } from "../../formats/messages/map-usage.ts";
import { decodeResponsesUsage } from "../../formats/responses/map-usage.ts";
import { upstreamErrorMessage } from "../classify-upstream-error.ts";
import { createTextTally, type TextTally } from "../sse/create-text-tally.ts";

/**
 * What to do with one upstream event: pass it on; hide it (the Chat usage chunk the client did not
 * ask for); or stop the stream at it: before it when it is malformed or a content filter's ending,
 * after it when it is the stream's terminal event or the upstream's own error event.
 */
export type Verdict = "pass" | "hide" | "malformed" | "filtered" | "end" | "failed";

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
  const state: { usage?: Usage; startUsage?: Usage; failure?: string } = {};
  const text = createTextTally();
  const failed = (event: JsonObject): Verdict => {
    state.failure = upstreamErrorMessage(event) ?? upstreamErrorMessage(event.response) ?? "upstream sent an error event";
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
      if (format === "chat" && data === "[DONE]") return "end";
      const event = parse(data);
      return event === undefined ? "malformed" : step(name, event);
    },
    get usage() {
      return state.usage;
    },
    get startUsage() {
      return state.startUsage;
    },
    get failure() {
      return state.failure;
    },
    text,
  };
}

type State = { usage?: Usage; startUsage?: Usage; failure?: string };
type Fail = (event: JsonObject) => Verdict;

function messagesStep(name: string | undefined, event: JsonObject, state: State, text: TextTally, failed: Fail): Verdict {
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
      const message = event.message;
      if (isJsonObject(message) && isJsonObject(message.usage)) state.startUsage = usageFromMessages(message.usage);
      return "pass";
    }
    case "message_delta":
      if (isJsonObject(event.usage)) state.usage = usageFromMessages(event.usage, state.usage ?? state.startUsage);
      return "pass";
    case "message_stop":
      return "end";
    case "error":
      return failed(event);
    default:
      return name === "error" ? failed(event) : "pass";
  }
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

function responsesStep(name: string | undefined, event: JsonObject, state: State, text: TextTally, failed: Fail): Verdict {
  const type = event.type;
  if (typeof type !== "string") return name === "error" ? failed(event) : "malformed";
  if (type.endsWith(".delta")) {
    const piece = str(event.delta);
    if (piece) text.add(piece);
    return "pass";
  }
  const response = event.response;
  switch (type) {
    case "response.completed":
      if (isJsonObject(response) && isJsonObject(response.usage)) state.usage = decodeResponsesUsage(response.usage);
      return "end";
    case "response.incomplete": {
      if (isJsonObject(response) && isJsonObject(response.usage)) state.usage = decodeResponsesUsage(response.usage);
      const details = isJsonObject(response) ? response.incomplete_details : undefined;
      return isJsonObject(details) && details.reason === "content_filter" ? "filtered" : "end";
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
