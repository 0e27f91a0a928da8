import type { ThinkingPart } from "../../canonical/content-part.ts";
import { gatewayErrorOf } from "../../canonical/gateway-error.ts";
import type { BlockStart, StreamEvent } from "../../canonical/stream-event.ts";
import { appendEncoded } from "../append-step.ts";
import type { EncodeContext, StreamEncoder } from "../client-format.ts";
import { needsJsonEscape, quoteJsonString } from "../quote-json-string.ts";
import {
  buildResponseObject,
  functionCallItem,
  itemIdFor,
  messageItem,
  outputTextPart,
  reasoningItem,
  redactedReasoningItem,
  responseIdFor,
} from "./build-output-items.ts";
import { keepText, newKeptText, readKeptText, type KeptText } from "../../canonical/kept-text.ts";
import { encodeResponsesStreamError } from "./encode-stream-error.ts";
import { encodeResponsesStopReason } from "./map-stop-reason.ts";
import type { ResponsesEventFields, ResponsesEventType, ResponsesOutputItem } from "./shapes.ts";

interface OpenItem {
  readonly kind: BlockStart["type"];
  readonly outputIndex: number;
  readonly itemId: string;
  /** `"item_id":…,"output_index":…` as JSON members, for the deltas. */
  readonly at: string;
  readonly callId: string;
  readonly name: string;
  /** Text, thinking text or argument JSON received so far (the `.done` events repeat it whole). */
  readonly body: KeptText;
  signature: string | undefined;
  /** Reasoning: whether the summary part was announced. */
  summaryOpen: boolean;
}

/** Encoder state; owned by the reducer, which updates it in place and hands it back. */
export interface ResponsesEncodeState {
  readonly ctx: EncodeContext;
  sequence: number;
  id: string;
  phase: "before" | "open" | "done";
  /** Open output items by canonical block index. */
  readonly open: Map<number, OpenItem>;
  /** Finished items by output index, for `response.completed`. */
  readonly done: ResponsesOutputItem[];
  nextOutput: number;
}

/**
 * One event: `type` and `sequence_number` first, then the fields (none of them named so), the
 * fields' JSON spliced in after the two rather than copied into a new object first.
 */
function frame<T extends ResponsesEventType>(state: ResponsesEncodeState, type: T, fields: ResponsesEventFields<T>): string {
  const rest = JSON.stringify(fields);
  const tail = rest === "{}" ? "}" : `,${rest.slice(1)}`;
  return `event: ${type}\ndata: {"type":"${type}","sequence_number":${state.sequence++}${tail}\n\n`;
}

/** A text delta's text around its sequence number, item and text. */
const TEXT_DELTA_HEAD = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":';
const TEXT_DELTA_AT = ',"content_index":0,"delta":';
const TEXT_DELTA_TAIL = ',"logprobs":[]}\n\n';

/** The most frequent event, written directly: only the text is serialised. */
function textDelta(state: ResponsesEncodeState, item: OpenItem, text: string): string {
  return `${TEXT_DELTA_HEAD}${state.sequence++},${item.at}${TEXT_DELTA_AT}${quoteJsonString(text)}${TEXT_DELTA_TAIL}`;
}

/** The same, its pieces appended to `out` as they are: a plain text is not even copied. */
function textDeltaInto(state: ResponsesEncodeState, item: OpenItem, text: string, out: string[]): void {
  out.push(TEXT_DELTA_HEAD, String(state.sequence++), ",", item.at, TEXT_DELTA_AT);
  if (needsJsonEscape(text)) out.push(JSON.stringify(text), TEXT_DELTA_TAIL);
  else out.push('"', text, '"', TEXT_DELTA_TAIL);
}

function opening(state: ResponsesEncodeState, id: string): string {
  state.id = responseIdFor(id);
  state.phase = "open";
  const response = buildResponseObject({ id: state.id, status: "in_progress", incompleteDetails: null, output: [], usage: null }, state.ctx);
  return frame(state, "response.created", { response }) + frame(state, "response.in_progress", { response });
}

function startItem(state: ResponsesEncodeState, index: number, block: BlockStart): string {
  const outputIndex = state.nextOutput++;
  const prefix = block.type === "text" ? "msg" : block.type === "thinking" || block.type === "redacted_thinking" ? "rs" : "fc";
  const itemId = itemIdFor(prefix, state.id, outputIndex);
  const item: OpenItem = {
    kind: block.type,
    outputIndex,
    itemId,
    at: `"item_id":${JSON.stringify(itemId)},"output_index":${outputIndex}`,
    callId: block.type === "tool_call" ? block.id : "",
    name: block.type === "tool_call" ? block.name : "",
    body: newKeptText(),
    signature: undefined,
    summaryOpen: false,
  };
  // Redacted thinking is whole at its start: its data is the item's body.
  if (block.type === "redacted_thinking") keepText(item.body, block.data);
  state.open.set(index, item);
  const at = { output_index: outputIndex };
  if (block.type === "redacted_thinking") return frame(state, "response.output_item.added", { ...at, item: { type: "reasoning", id: itemId, summary: [] } });
  if (block.type === "tool_call") {
    return frame(state, "response.output_item.added", { ...at, item: functionCallItem(itemId, item.callId, item.name, "", "in_progress") });
  }
  if (block.type === "thinking") return frame(state, "response.output_item.added", { ...at, item: { type: "reasoning", id: itemId, summary: [] } });
  return (
    frame(state, "response.output_item.added", { ...at, item: messageItem(itemId, [], "in_progress") }) +
    frame(state, "response.content_part.added", { item_id: itemId, ...at, content_index: 0, part: outputTextPart("") })
  );
}

function thinkingDelta(state: ResponsesEncodeState, item: OpenItem, text: string): string {
  const at = { item_id: item.itemId, output_index: item.outputIndex, summary_index: 0 };
  let out = "";
  if (!item.summaryOpen) {
    item.summaryOpen = true;
    out += frame(state, "response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
  }
  keepText(item.body, text);
  return out + frame(state, "response.reasoning_summary_text.delta", { ...at, delta: text });
}

function delta(state: ResponsesEncodeState, event: Extract<StreamEvent, { index: number }>): string {
  const item = state.open.get(event.index);
  if (item === undefined) return "";
  switch (event.type) {
    case "text_delta":
      if (item.kind !== "text" || event.text === "") return "";
      keepText(item.body, event.text);
      return textDelta(state, item, event.text);
    case "thinking_delta":
      return item.kind === "thinking" && event.text !== "" ? thinkingDelta(state, item, event.text) : "";
    case "signature_delta":
      item.signature = (item.signature ?? "") + event.signature;
      return "";
    case "tool_args_delta":
      if (item.kind !== "tool_call" || event.fragment === "") return "";
      keepText(item.body, event.fragment);
      return frame(state, "response.function_call_arguments.delta", { item_id: item.itemId, output_index: item.outputIndex, delta: event.fragment });
    default:
      return "";
  }
}

/** The `.done` events of an item, ending with `output_item.done` carrying the finished item. */
function stopItem(state: ResponsesEncodeState, index: number): string {
  const item = state.open.get(index);
  if (item === undefined) return "";
  state.open.delete(index);
  const at = { item_id: item.itemId, output_index: item.outputIndex };
  let out = "";
  let finished: ResponsesOutputItem;
  const body = readKeptText(item.body);
  if (item.kind === "text") {
    out += frame(state, "response.output_text.done", { ...at, content_index: 0, text: body, logprobs: [] });
    out += frame(state, "response.content_part.done", { ...at, content_index: 0, part: outputTextPart(body) });
    finished = messageItem(item.itemId, [body], "completed");
  } else if (item.kind === "tool_call") {
    out += frame(state, "response.function_call_arguments.done", { ...at, arguments: body });
    finished = functionCallItem(item.itemId, item.callId, item.name, body, "completed");
  } else if (item.kind === "redacted_thinking") {
    finished = redactedReasoningItem(item.itemId, body);
  } else {
    if (item.summaryOpen) {
      const part = { ...at, summary_index: 0 };
      out += frame(state, "response.reasoning_summary_text.done", { ...part, text: body });
      out += frame(state, "response.reasoning_summary_part.done", { ...part, part: { type: "summary_text", text: body } });
    }
    const thinking: ThinkingPart = { type: "thinking", text: body, ...(item.signature !== undefined ? { signature: item.signature } : {}) };
    finished = reasoningItem(item.itemId, thinking);
  }
  state.done[item.outputIndex] = finished;
  return out + frame(state, "response.output_item.done", { output_index: item.outputIndex, item: finished });
}

function finish(state: ResponsesEncodeState, event: Extract<StreamEvent, { type: "finish" }>): string {
  let out = "";
  for (const index of [...state.open.keys()].sort((a, b) => a - b)) out += stopItem(state, index);
  const outcome = encodeResponsesStopReason(event.stopReason);
  const output = state.done.filter((item): item is ResponsesOutputItem => item !== undefined);
  const response = buildResponseObject(
    { id: state.id, status: outcome.status, incompleteDetails: outcome.incompleteDetails, output, usage: event.usage },
    state.ctx,
  );
  state.phase = "done";
  return out + frame(state, outcome.status === "completed" ? "response.completed" : "response.incomplete", { response });
}

/**
 * Canonical events → Responses SSE, as the API streams it: created, in_progress, per item
 * added → deltas → dones, and `response.completed` (or `response.incomplete`) with the whole
 * response. A failure becomes the in-stream `error` event and nothing follows it.
 */
export const responsesStreamEncoder = {
  initial: (ctx: EncodeContext): ResponsesEncodeState => ({
    ctx,
    sequence: 0,
    id: responseIdFor(""),
    phase: "before",
    open: new Map(),
    done: [],
    nextOutput: 0,
  }),
  step(state: ResponsesEncodeState, event: StreamEvent): readonly [ResponsesEncodeState, string] {
    if (state.phase === "done") return [state, ""];
    if (event.type === "error") {
      state.phase = "done";
      const error = gatewayErrorOf(event.error.status, event.error.type, event.error.message);
      return [state, encodeResponsesStreamError(error, state.sequence++)];
    }
    if (event.type === "start") return [state, state.phase === "before" ? opening(state, event.id) : ""];
    const prelude = state.phase === "before" ? opening(state, "") : "";
    switch (event.type) {
      case "block_start":
        return [state, prelude + startItem(state, event.index, event.block)];
      case "block_stop":
        return [state, prelude + stopItem(state, event.index)];
      case "finish":
        return [state, prelude + finish(state, event)];
      default:
        return [state, prelude + delta(state, event)];
    }
  },
  stepInto(state: ResponsesEncodeState, event: StreamEvent, out: string[]): ResponsesEncodeState {
    // A text delta of an open item (nearly every event of a long answer) goes out in pieces.
    if (state.phase === "open" && event.type === "text_delta") {
      const item = state.open.get(event.index);
      if (item?.kind === "text") {
        if (event.text !== "") {
          keepText(item.body, event.text);
          textDeltaInto(state, item, event.text, out);
        }
        return state;
      }
    }
    return appendEncoded(responsesStreamEncoder.step, state, event, out);
  },
} satisfies StreamEncoder<ResponsesEncodeState>;
