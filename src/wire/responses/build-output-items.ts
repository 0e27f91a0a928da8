import type { ThinkingPart } from "../../canonical/content-part.ts";
import type { Usage } from "../../canonical/usage.ts";
import type { EncodeContext } from "../client-format.ts";
import type { ResponsesOutcome } from "./map-stop-reason.ts";
import { encodeResponsesUsage } from "./map-usage.ts";
import { ANSWER_ID_PREFIXES, showAnswerId } from "../show-answer-id.ts";
import { packForeignThinking, unpackResponsesReasoning } from "../pack-reasoning.ts";
import type {
  ResponsesFunctionCallItem,
  ResponsesItemStatus,
  ResponsesMessageItem,
  ResponsesOutputItem,
  ResponsesOutputText,
  ResponsesReasoningItem,
  ResponsesResponse,
} from "./shapes.ts";

/** The `resp_` id shown to the client; answers of other APIs keep their id after the prefix. */
export function responseIdFor(upstreamId: string): string {
  return showAnswerId("responses", upstreamId);
}

/** A stable item id within one response: `msg_…`, `rs_…`, `fc_…` + the response id's tail + the item position. */
export function itemIdFor(prefix: "msg" | "rs" | "fc", responseId: string, position: number): string {
  return `${prefix}_${responseId.slice(ANSWER_ID_PREFIXES.responses.length)}_${position}`;
}

export function outputTextPart(text: string): ResponsesOutputText {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

export function messageItem(id: string, texts: readonly string[], status: ResponsesItemStatus): ResponsesMessageItem {
  return { type: "message", id, status, role: "assistant", content: texts.map(outputTextPart) };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status: ResponsesItemStatus): ResponsesFunctionCallItem {
  return { type: "function_call", id, call_id: callId, name, arguments: args, status };
}

/**
 * Thinking as a reasoning item. A Responses upstream's reasoning goes back as it was (id and
 * encrypted content); thinking of another API travels packed in `encrypted_content` so the next
 * request can restore it exactly.
 */
export function reasoningItem(fallbackId: string, part: ThinkingPart): ResponsesReasoningItem {
  const summary = part.text === "" ? [] : [{ type: "summary_text" as const, text: part.text }];
  const own = unpackResponsesReasoning(part.signature);
  if (own !== null) {
    return { type: "reasoning", id: own.id, summary, ...(own.encryptedContent !== undefined ? { encrypted_content: own.encryptedContent } : {}) };
  }
  const foreign = { text: part.text, ...(part.signature !== undefined ? { signature: part.signature } : {}) };
  return { type: "reasoning", id: fallbackId, summary, encrypted_content: packForeignThinking(foreign) };
}

/** Redacted thinking as a reasoning item with no summary, its data packed in `encrypted_content`. */
export function redactedReasoningItem(id: string, data: string): ResponsesReasoningItem {
  return { type: "reasoning", id, summary: [], encrypted_content: packForeignThinking({ redacted: data }) };
}

export interface ResponseEnvelope {
  readonly id: string;
  readonly status: "in_progress" | ResponsesOutcome["status"];
  readonly incompleteDetails: ResponsesOutcome["incompleteDetails"];
  readonly output: readonly ResponsesOutputItem[];
  readonly usage: Usage | null;
}

/** A `Response` object with every field the API marks required; request settings it cannot know are defaults. */
export function buildResponseObject(envelope: ResponseEnvelope, ctx: EncodeContext): ResponsesResponse {
  return {
    id: envelope.id,
    object: "response",
    created_at: ctx.created,
    // Left out until the response completes: a finished response never has it null.
    ...(envelope.status === "completed" ? { completed_at: ctx.created } : {}),
    status: envelope.status,
    background: false,
    error: null,
    incomplete_details: envelope.incompleteDetails,
    instructions: null,
    max_output_tokens: null,
    model: ctx.model,
    output: envelope.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    // The effort the gateway chose is in `x-router-effort`; the API never sends it null.
    reasoning: { summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: envelope.usage === null ? null : encodeResponsesUsage(envelope.usage),
    metadata: {},
  };
}
