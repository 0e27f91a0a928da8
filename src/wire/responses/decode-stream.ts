import type { StreamEvent } from "../../canonical/stream-event.ts";
import { decodeResponsesStopReason } from "./map-stop-reason.ts";
import { decodeResponsesUsage } from "./map-usage.ts";
import type { SseEvent } from "../sse-event.ts";
import type { StreamDecoder } from "../upstream-adapter.ts";
import { classifyResponsesFailure } from "./classify-responses-failure.ts";
import { reasoningSignature, reasoningText } from "./read-output-item.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { keepText, newKeptText, readKeptText, type KeptText } from "../../canonical/kept-text.ts";
import { type JsonPath, learnShape, newShapeMemory, readShaped, type ShapeMemory } from "../json-shape.ts";
import { readShapedEvent } from "../read-shaped-event.ts";

interface TrackedItem {
  readonly kind: string;
  /** The canonical block of a reasoning or function_call item. */
  readonly index?: number;
  /** Whether any delta (thinking text or argument fragment) was forwarded. */
  streamed: boolean;
  /** Reasoning: a summary part was added after some text, so the next text starts with a separator. */
  separator: boolean;
  /** Message: whether any content part was opened. */
  hadParts: boolean;
}

interface TextBlock {
  readonly index: number;
  /** The text forwarded so far, for a part's final text to be checked against. */
  readonly text: KeptText;
}

/** Decoder state; owned by the reducer, which updates it in place and hands it back. */
export interface ResponsesDecodeState {
  phase: "before" | "open" | "done";
  nextIndex: number;
  readonly items: Map<number, TrackedItem>;
  /** Text blocks by `<output_index>:<content_index>`. */
  readonly texts: Map<string, TextBlock>;
  /** Open canonical blocks, in start order. */
  readonly open: Set<number>;
  toolCalls: boolean;
  refusal: boolean;
  /** The shape of this stream's deltas, once learned: those are read without JSON.parse. */
  readonly shapes: ShapeMemory;
  /** The text block found last, by its output and content index. */
  lastText?: { readonly output: number; readonly content: number; readonly block: TextBlock };
}

/** What changes from one delta to the next: its text, OpenAI's padding, its sequence number. */
const DELTA_TEXT: readonly JsonPath[] = [["delta"]];
const DELTA_PADDING: readonly JsonPath[] = [["obfuscation"]];
const DELTA_COUNTS: readonly JsonPath[] = [["sequence_number"]];

const failure = (message: string): StreamEvent => ({ type: "error", error: { status: 502, type: "upstream_error", message } });
const num = (value: unknown): number => (typeof value === "number" ? value : -1);
const str = (value: unknown): string => (typeof value === "string" ? value : "");

function startBlock(state: ResponsesDecodeState, out: StreamEvent[], block: Extract<StreamEvent, { type: "block_start" }>["block"]): number {
  const index = state.nextIndex++;
  state.open.add(index);
  out.push({ type: "block_start", index, block });
  return index;
}

function stopBlock(state: ResponsesDecodeState, out: StreamEvent[], index: number | undefined): void {
  if (index === undefined || !state.open.delete(index)) return;
  out.push({ type: "block_stop", index });
}

function ensureStarted(state: ResponsesDecodeState, out: StreamEvent[], data: JsonObject): void {
  if (state.phase !== "before") return;
  const response = isJsonObject(data.response) ? data.response : {};
  out.push({ type: "start", id: str(response.id), model: str(response.model) });
  state.phase = "open";
}

function addItem(state: ResponsesDecodeState, out: StreamEvent[], data: JsonObject): void {
  const item = isJsonObject(data.item) ? data.item : {};
  const kind = str(item.type);
  const tracked: TrackedItem = { kind, streamed: false, separator: false, hadParts: false };
  if (kind === "reasoning") {
    state.items.set(num(data.output_index), { ...tracked, index: startBlock(state, out, { type: "thinking" }) });
  } else if (kind === "function_call") {
    const index = startBlock(state, out, { type: "tool_call", id: str(item.call_id) || str(item.id), name: str(item.name) });
    state.toolCalls = true;
    const args = str(item.arguments);
    if (args !== "") out.push({ type: "tool_args_delta", index, fragment: args });
    state.items.set(num(data.output_index), { ...tracked, index, streamed: args !== "" });
  } else {
    state.items.set(num(data.output_index), tracked);
  }
}

function textBlock(state: ResponsesDecodeState, out: StreamEvent[], data: JsonObject): TextBlock {
  const output = num(data.output_index);
  const content = num(data.content_index);
  // A part's deltas come one after another: the last part found is asked for again, without a key made for it.
  const last = state.lastText;
  if (last !== undefined && last.output === output && last.content === content) return last.block;
  const key = `${output}:${content}`;
  const existing = state.texts.get(key);
  if (existing !== undefined) {
    state.lastText = { output, content, block: existing };
    return existing;
  }
  const block: TextBlock = { index: startBlock(state, out, { type: "text" }), text: newKeptText() };
  state.texts.set(key, block);
  const item = state.items.get(output);
  if (item !== undefined) item.hadParts = true;
  return block;
}

/**
 * Text of a content part: a delta, or (`whole`) the part's final text. A final text that goes on
 * from what was streamed sends its rest; one that contradicts it cannot take back what the client
 * already has, and is left out.
 */
function addText(state: ResponsesDecodeState, out: StreamEvent[], data: JsonObject, text: string, whole: boolean): void {
  const block = textBlock(state, out, data);
  const sent = whole ? readKeptText(block.text) : "";
  const rest = !whole ? text : text.startsWith(sent) ? text.slice(sent.length) : "";
  if (rest === "") return;
  out.push({ type: "text_delta", index: block.index, text: rest });
  keepText(block.text, rest);
}

function addThinking(out: StreamEvent[], item: TrackedItem | undefined, text: string): void {
  if (item?.index === undefined || text === "") return;
  out.push({ type: "thinking_delta", index: item.index, text: item.separator ? `\n\n${text}` : text });
  item.separator = false;
  item.streamed = true;
}

/** `output_item.done`: what was not streamed comes from the finished item, then its block(s) stop. */
function finishItem(state: ResponsesDecodeState, out: StreamEvent[], data: JsonObject): void {
  const outputIndex = num(data.output_index);
  const tracked = state.items.get(outputIndex);
  const item = isJsonObject(data.item) ? data.item : {};
  if (tracked?.kind === "reasoning" && tracked.index !== undefined) {
    if (!tracked.streamed) addThinking(out, tracked, reasoningText(item));
    out.push({ type: "signature_delta", index: tracked.index, signature: reasoningSignature(item) });
    stopBlock(state, out, tracked.index);
  } else if (tracked?.kind === "function_call" && tracked.index !== undefined) {
    const args = str(item.arguments);
    if (!tracked.streamed && args !== "") out.push({ type: "tool_args_delta", index: tracked.index, fragment: args });
    stopBlock(state, out, tracked.index);
  } else if (tracked?.kind === "message" || item.type === "message") {
    if (tracked?.hadParts !== true) {
      const content = Array.isArray(item.content) ? item.content : [];
      content.forEach((part, i) => {
        if (!isJsonObject(part)) return;
        const text = part.type === "refusal" ? str(part.refusal) : str(part.text);
        state.refusal ||= part.type === "refusal";
        addText(state, out, { output_index: outputIndex, content_index: i }, text, true);
      });
    }
    for (const [key, block] of state.texts) if (key.startsWith(`${outputIndex}:`)) stopBlock(state, out, block.index);
  }
}

function finish(state: ResponsesDecodeState, out: StreamEvent[], data: JsonObject, status: string): void {
  for (const index of [...state.open]) stopBlock(state, out, index);
  const response = isJsonObject(data.response) ? data.response : {};
  const details = isJsonObject(response.incomplete_details) ? response.incomplete_details : {};
  const stopReason = decodeResponsesStopReason({
    status,
    incompleteReason: typeof details.reason === "string" ? details.reason : null,
    hasToolCalls: state.toolCalls,
    hasRefusal: state.refusal,
  });
  out.push({ type: "finish", stopReason, usage: decodeResponsesUsage(response.usage) });
  state.phase = "done";
}

function fail(state: ResponsesDecodeState, out: StreamEvent[], raw: unknown, fallback: string): void {
  out.push({ type: "error", error: classifyResponsesFailure(raw, fallback) });
  state.phase = "done";
}

/** Reasoning-summary events, split out to keep `apply` readable. */
function applyReasoning(state: ResponsesDecodeState, out: StreamEvent[], type: string, data: JsonObject): void {
  const item = state.items.get(num(data.output_index));
  if (type === "response.reasoning_summary_part.added") {
    if (item?.streamed) item.separator = true;
  } else if (type === "response.reasoning_summary_text.delta") {
    addThinking(out, item, str(data.delta));
  } else if (type === "response.reasoning_summary_text.done" && item !== undefined && !item.streamed) {
    addThinking(out, item, str(data.text));
  }
}

function apply(state: ResponsesDecodeState, out: StreamEvent[], type: string, data: JsonObject): void {
  if (type === "error") return void fail(state, out, data, "upstream stream error");
  ensureStarted(state, out, data);
  switch (type) {
    case "response.output_item.added":
      return void addItem(state, out, data);
    case "response.output_item.done":
      return void finishItem(state, out, data);
    case "response.content_part.added":
      state.refusal ||= isJsonObject(data.part) && data.part.type === "refusal";
      textBlock(state, out, data);
      return;
    case "response.content_part.done":
      return void stopBlock(state, out, state.texts.get(`${num(data.output_index)}:${num(data.content_index)}`)?.index);
    case "response.output_text.delta":
    case "response.refusal.delta":
      state.refusal ||= type === "response.refusal.delta";
      return void addText(state, out, data, str(data.delta), false);
    case "response.output_text.done":
      return void addText(state, out, data, str(data.text), true);
    case "response.refusal.done":
      return void addText(state, out, data, str(data.refusal), true);
    case "response.function_call_arguments.delta":
    case "response.function_call_arguments.done": {
      const item = state.items.get(num(data.output_index));
      if (item?.index === undefined) return;
      const fragment = type.endsWith(".delta") ? str(data.delta) : item.streamed ? "" : str(data.arguments);
      if (fragment !== "") out.push({ type: "tool_args_delta", index: item.index, fragment });
      item.streamed ||= fragment !== "";
      return;
    }
    case "response.completed":
    case "response.incomplete":
      return void finish(state, out, data, type === "response.completed" ? "completed" : "incomplete");
    case "response.failed":
      return void fail(state, out, isJsonObject(data.response) ? data.response.error : undefined, "upstream response failed");
    default:
      if (type.startsWith("response.reasoning_summary_")) applyReasoning(state, out, type, data);
  }
}

function parse(data: string): JsonObject | null {
  try {
    const parsed: unknown = JSON.parse(data);
    return isJsonObject(parsed) && typeof parsed.type === "string" ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * An event's data through the stream's shape, or parsed; a delta parsed once the answer is open
 * teaches the shape. The shape's object is rewritten by the next match: `apply` keeps nothing of a
 * delta's data but its strings.
 */
function read(state: ResponsesDecodeState, event: SseEvent): JsonObject | null {
  const shaped = readShaped(state.shapes, event.data);
  if (shaped !== undefined) return shaped;
  const data = parse(event.data);
  if (data !== null && state.phase === "open" && String(data.type).endsWith(".delta")) learnShape(state.shapes, event.data, data, DELTA_TEXT, DELTA_PADDING, DELTA_COUNTS, event.event);
  return data;
}

/**
 * Responses SSE → canonical events. Blocks are numbered in start order: one thinking block per
 * reasoning item, one text block per content part, one tool-call block per function call.
 */
export const responsesStreamDecoder = {
  initial: (): ResponsesDecodeState => ({
    phase: "before",
    nextIndex: 0,
    items: new Map(),
    texts: new Map(),
    open: new Set(),
    toolCalls: false,
    refusal: false,
    shapes: newShapeMemory(),
  }),
  step(state: ResponsesDecodeState, event: SseEvent): readonly [ResponsesDecodeState, readonly StreamEvent[]] {
    const out: StreamEvent[] = [];
    return [responsesStreamDecoder.stepInto(state, event, out), out];
  },
  stepInto(state: ResponsesDecodeState, event: SseEvent, out: StreamEvent[]): ResponsesDecodeState {
    if (state.phase === "done" || event.data === "" || event.data === "[DONE]") return state;
    const data = read(state, event);
    if (data === null) {
      state.phase = "done";
      out.push(failure("malformed event in the upstream Responses stream"));
      return state;
    }
    apply(state, out, String(data.type), data);
    return state;
  },
  /** The deltas that fit the stream's learned shape, read from bytes (see readShapedEvent). */
  stepBytes(state: ResponsesDecodeState, bytes: Uint8Array, at: number, maxEventBytes: number, out: StreamEvent[]): number {
    const memory = state.shapes;
    while (state.phase !== "done" && at < bytes.length) {
      const end = readShapedEvent(memory, bytes, at, maxEventBytes);
      if (end < 0) break;
      const data = memory.shape!.chunk;
      apply(state, out, String(data.type), data);
      at = end;
    }
    return at;
  },
  end(state: ResponsesDecodeState): readonly StreamEvent[] {
    if (state.phase === "done") return [];
    state.phase = "done";
    return [failure("upstream Responses stream ended before response.completed")];
  },
} satisfies StreamDecoder<ResponsesDecodeState>;
