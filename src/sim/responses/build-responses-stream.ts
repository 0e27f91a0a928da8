import { splitJson, splitText } from "../split-text.ts";
import { sseFrame } from "../sse-frame.ts";
import type { SimAnswer } from "../types.ts";
import { buildResponseObject, responseItems, responsesUsage } from "./build-response-object.ts";
import type { ResponsesInput } from "./read-responses-request.ts";
import type { ResponsesEventFields, ResponsesEventType, ResponsesOutputItem } from "../../wire/responses/shapes.ts";

/** The item as `output_item.added` shows it: nothing generated yet. */
function openedItem(item: ResponsesOutputItem): ResponsesOutputItem {
  if (item.type === "message") return { ...item, status: "in_progress", content: [] };
  if (item.type === "function_call") return { ...item, arguments: "", status: "in_progress" };
  return { ...item, summary: [] };
}

/**
 * The Responses event sequence with `sequence_number` from 0: created, in_progress, per item
 * added → (summary part | content part | arguments) deltas and dones → done, then
 * `response.completed`, or `response.incomplete` after a max_output_tokens cut.
 */
export function buildResponsesStream(input: ResponsesInput, answer: SimAnswer, createdAt: number): string[] {
  const frames: string[] = [];
  let sequence = 0;
  const emit = <T extends ResponsesEventType>(type: T, fields: ResponsesEventFields<T>): void => {
    frames.push(sseFrame(type, { type, sequence_number: sequence++, ...fields }));
  };
  const opening = buildResponseObject(input, { status: "in_progress", output: [], usage: null, createdAt });
  emit("response.created", { response: opening });
  emit("response.in_progress", { response: opening });

  const items = responseItems(input, answer);
  for (const [outputIndex, item] of items.entries()) {
    const itemId = item.id;
    emit("response.output_item.added", { output_index: outputIndex, item: openedItem(item) });
    if (item.type === "reasoning" && input.summary) {
      const at = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
      emit("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
      for (const delta of splitText(answer.reasoningText)) emit("response.reasoning_summary_text.delta", { ...at, delta });
      emit("response.reasoning_summary_text.done", { ...at, text: answer.reasoningText });
      emit("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text: answer.reasoningText } });
    } else if (item.type === "message") {
      const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      emit("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
      for (const delta of splitText(answer.text)) emit("response.output_text.delta", { ...at, delta, logprobs: [] });
      emit("response.output_text.done", { ...at, text: answer.text, logprobs: [] });
      emit("response.content_part.done", { ...at, part: { type: "output_text", text: answer.text, annotations: [], logprobs: [] } });
    } else if (item.type === "function_call") {
      const args = item.arguments;
      const at = { item_id: itemId, output_index: outputIndex };
      for (const delta of splitJson(args)) emit("response.function_call_arguments.delta", { ...at, delta });
      emit("response.function_call_arguments.done", { ...at, arguments: args });
    }
    emit("response.output_item.done", { output_index: outputIndex, item });
  }

  const status = answer.stop === "length" ? "incomplete" : "completed";
  const final = buildResponseObject(input, { status, output: items, usage: responsesUsage(input, answer), createdAt });
  emit(status === "incomplete" ? "response.incomplete" : "response.completed", { response: final });
  return frames;
}
