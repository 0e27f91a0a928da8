import { makeId } from "../make-id.ts";
import type { SimAnswer, SimStop } from "../types.ts";
import type { ChatAnswerMessage, ChatCompletion, ChatFinishReason, ChatToolCall, ChatUsage } from "../../wire/chat/shapes.ts";
import type { ChatInput } from "./read-chat-request.ts";

const FINISH_REASONS: Record<SimStop, ChatFinishReason> = { end: "stop", length: "length", stop_sequence: "stop", tool: "tool_calls" };

export const chatFinishReason = (stop: SimStop): ChatFinishReason => FINISH_REASONS[stop];

/**
 * Chat usage: `prompt_tokens` includes the cached tokens; completion includes reasoning and counts
 * every choice (the simulator's choices are the same answer `n` times).
 */
export function chatUsage(input: ChatInput, answer: SimAnswer): ChatUsage {
  const { total, cacheRead } = input.usage;
  const completion = answer.outputTokens * input.choices;
  return {
    prompt_tokens: total,
    completion_tokens: completion,
    total_tokens: total + completion,
    prompt_tokens_details: { cached_tokens: cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: answer.reasoningTokens * input.choices,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function chatToolCalls(input: ChatInput, answer: SimAnswer): ChatToolCall[] {
  return answer.toolCalls.map((call, i) => ({
    id: makeId("call_", input.seed, i),
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
}

/** A complete non-stream `chat.completion`. */
export function buildChatBody(input: ChatInput, answer: SimAnswer, created: number): ChatCompletion {
  const toolCalls = chatToolCalls(input, answer);
  const message: ChatAnswerMessage = {
    role: "assistant",
    content: answer.text === "" && toolCalls.length > 0 ? null : answer.text,
    refusal: null,
    annotations: [],
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return {
    id: makeId("chatcmpl-", input.seed),
    object: "chat.completion",
    created,
    model: input.model,
    choices: Array.from({ length: input.choices }, (_, index) => ({ index, message, logprobs: null, finish_reason: chatFinishReason(answer.stop) })),
    usage: chatUsage(input, answer),
    service_tier: "default",
  };
}
