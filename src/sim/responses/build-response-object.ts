import { makeId } from "../make-id.ts";
import { signThinking } from "../sign-thinking.ts";
import type { SimAnswer } from "../types.ts";
import type { ResponsesInput } from "./read-responses-request.ts";
import type { ResponsesOutputItem, ResponsesResponse, ResponsesUsage } from "../../wire/responses/shapes.ts";

/** The output items in their final form, in output order: reasoning, message, function calls. */
export function responseItems(input: ResponsesInput, answer: SimAnswer): ResponsesOutputItem[] {
  const items: ResponsesOutputItem[] = [];
  if (input.effort !== null) {
    items.push({
      id: makeId("rs_", input.seed),
      type: "reasoning",
      summary: input.summary ? [{ type: "summary_text", text: answer.reasoningText }] : [],
      ...(input.encrypted ? { encrypted_content: btoa(`${input.model}:${signThinking(input.model, answer.reasoningText)}`) } : {}),
    });
  }
  if (answer.text !== "") {
    items.push({
      id: makeId("msg_", input.seed),
      type: "message",
      role: "assistant",
      status: answer.stop === "length" ? "incomplete" : "completed",
      content: [{ type: "output_text", text: answer.text, annotations: [], logprobs: [] }],
    });
  }
  for (const [i, call] of answer.toolCalls.entries()) {
    items.push({
      id: makeId("fc_", input.seed, i),
      type: "function_call",
      call_id: makeId("call_", input.seed, i),
      name: call.name,
      arguments: call.arguments,
      status: "completed",
    });
  }
  return items;
}

/** Responses usage: `input_tokens` includes the cached tokens; output includes reasoning. */
export function responsesUsage(input: ResponsesInput, answer: SimAnswer): ResponsesUsage {
  const { total, cacheRead } = input.usage;
  return {
    input_tokens: total,
    input_tokens_details: { cached_tokens: cacheRead },
    output_tokens: answer.outputTokens,
    output_tokens_details: { reasoning_tokens: answer.reasoningTokens },
    total_tokens: total + answer.outputTokens,
  };
}

export interface ResponseState {
  status: "in_progress" | "completed" | "incomplete";
  output: ResponsesOutputItem[];
  usage: ResponsesUsage | null;
  createdAt: number;
}

/**
 * A `Response` object with every field the spec marks required, echoing the request's settings.
 * No `output_text`: it is an SDK convenience, and the SDK derives it itself.
 */
export function buildResponseObject(input: ResponsesInput, state: ResponseState): ResponsesResponse {
  const body = input.body;
  const reasoning = body.reasoning !== null && typeof body.reasoning === "object" ? (body.reasoning as Record<string, unknown>) : {};
  return {
    id: makeId("resp_", input.seed),
    object: "response",
    created_at: state.createdAt,
    // Left out until the response completes, never null in a finished response.
    ...(state.status === "completed" ? { completed_at: state.createdAt } : {}),
    status: state.status,
    background: false,
    error: null,
    incomplete_details: state.status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: input.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    // The API names the effort it ran at, never null: left out when the request did not set one.
    reasoning: { ...(typeof reasoning.effort === "string" ? { effort: reasoning.effort } : {}), summary: reasoning.summary ?? null },
    service_tier: "default",
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: state.usage,
    metadata: body.metadata ?? {},
  };
}
