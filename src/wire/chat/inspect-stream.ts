import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import type { Usage } from "../../canonical/usage.ts";
import { type InspectContext, parseEventData, type StreamInspector, textOf, type Verdict } from "../stream-inspector.ts";
import { learnShape, newShapeMemory, readShaped } from "../json-shape.ts";
import { CHANGING_CHUNK_STRINGS, CHUNK_PADDING } from "./chunk-strings.ts";
import { decodeChatUsage } from "./map-usage.ts";

/** The end of a Chat stream: not JSON, and nothing follows it. */
export const CHAT_STREAM_END = "[DONE]";

interface State {
  usage?: Usage;
  between?: boolean;
}

function step(name: string | undefined, event: JsonObject, state: State, ctx: InspectContext): Verdict {
  if (name === "error" || ("error" in event && event.error !== null && event.error !== undefined)) return ctx.failed(event);
  const choices = event.choices;
  let filtered = false;
  if (Array.isArray(choices)) {
    for (const choice of choices) {
      if (!isJsonObject(choice)) continue;
      if (choice.finish_reason === "content_filter") filtered = true;
      const delta = choice.delta;
      if (!isJsonObject(delta)) continue;
      const piece = textOf(delta.content) ?? textOf(delta.reasoning_content) ?? textOf(delta.reasoning) ?? textOf(delta.refusal);
      if (piece) ctx.addText(piece);
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) {
          const fn = isJsonObject(call) ? call.function : undefined;
          if (!isJsonObject(fn)) continue;
          const callName = textOf(fn.name);
          const args = textOf(fn.arguments);
          if (callName) ctx.addText(callName);
          if (args) ctx.addText(args);
        }
      }
    }
  }
  if (filtered) return "filtered";
  if (isJsonObject(event.usage)) {
    state.usage = decodeChatUsage(event.usage);
    if (ctx.hideUsageChunk && Array.isArray(choices) && choices.length === 0) return "hide";
  }
  return "pass";
}

/** Reads a Chat stream passed through (see StreamInspector). */
export function inspectChatStream(ctx: InspectContext): StreamInspector {
  const state: State = {};
  // Text chunks differ only in their text: those after the first of a kind are read without JSON.parse.
  const shapes = newShapeMemory();
  const parse = (data: string): JsonObject | undefined => {
    const event = parseEventData(data);
    if (event !== undefined) learnShape(shapes, data, event, CHANGING_CHUNK_STRINGS, CHUNK_PADDING);
    return event;
  };
  return {
    step(name, data) {
      if (data === CHAT_STREAM_END) {
        state.between = true;
        return "stopped";
      }
      const event = readShaped(shapes, data) ?? parse(data);
      if (event === undefined) return "malformed";
      // Whatever follows the end (a recording holds two answers) means the stream goes on.
      state.between = false;
      return step(name, event, state, ctx);
    },
    get usage() {
      return state.usage;
    },
    startUsage: undefined,
    get between() {
      return state.between === true;
    },
    replacement: undefined,
  };
}
