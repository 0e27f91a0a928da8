import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import type { Usage } from "../../canonical/usage.ts";
import { type InspectContext, parseEventData, type StreamInspector, textOf, type Verdict } from "../stream-inspector.ts";
import { decodeResponsesUsage } from "./map-usage.ts";

interface State {
  usage?: Usage;
  between?: boolean;
  /** The id the response started with, and each output item's id as it was added, by output index. */
  responseId?: string;
  itemIds?: Map<number, string>;
  /** See StreamInspector.replacement. */
  replacement?: string;
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

function step(name: string | undefined, event: JsonObject, state: State, ctx: InspectContext): Verdict {
  const type = event.type;
  if (typeof type !== "string") return name === "error" ? ctx.failed(event) : "malformed";
  if (pinIds(type, event, state)) state.replacement = JSON.stringify(event);
  if (type.endsWith(".delta")) {
    const piece = textOf(event.delta);
    if (piece) ctx.addText(piece);
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
      return ctx.failed(event);
    case "error":
      return ctx.failed(event);
    default:
      return "pass";
  }
}

/** Reads a Responses stream passed through (see StreamInspector). */
export function inspectResponsesStream(ctx: InspectContext): StreamInspector {
  const state: State = {};
  return {
    step(name, data) {
      state.replacement = undefined;
      const event = parseEventData(data);
      if (event === undefined) return "malformed";
      const verdict = step(name, event, state, ctx);
      // Whatever follows a terminal event (a recording holds two answers) means the stream goes on.
      if (verdict !== "stopped") state.between = false;
      return verdict;
    },
    get usage() {
      return state.usage;
    },
    startUsage: undefined,
    get between() {
      return state.between === true;
    },
    get replacement() {
      return state.replacement;
    },
  };
}
