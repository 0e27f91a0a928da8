import type { CanonicalResponse } from "../../canonical/response.ts";
import type { EncodeContext } from "../client-format.ts";
import { encodeChatStopReason } from "./map-stop-reason.ts";
import { encodeChatUsage } from "./map-usage.ts";
import { showAnswerId } from "../show-answer-id.ts";
import type { ChatAnswerMessage, ChatCompletion, ChatToolCall } from "./shapes.ts";

/**
 * A canonical answer → the Chat Completions non-stream body. Thinking is shown as the
 * `reasoning_content` extension (SDKs ignore it); redacted thinking and signatures have no place.
 * The `model` shown is the tier the client called.
 */
export function encodeChatResponse(response: CanonicalResponse, ctx: EncodeContext): ChatCompletion {
  let text = "";
  let reasoning = "";
  const toolCalls: ChatToolCall[] = [];
  for (const part of response.content) {
    if (part.type === "text") text += part.text;
    else if (part.type === "thinking") reasoning += reasoning === "" || part.text === "" ? part.text : `\n\n${part.text}`;
    else if (part.type === "tool_call") {
      toolCalls.push({ id: part.id, type: "function", function: { name: part.name, arguments: part.arguments === "" ? "{}" : part.arguments } });
    }
  }
  const message: ChatAnswerMessage = {
    role: "assistant",
    content: text === "" && toolCalls.length > 0 ? null : text,
    refusal: null,
    annotations: [],
    ...(reasoning !== "" ? { reasoning_content: reasoning } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return {
    id: showAnswerId("chat", response.id),
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: encodeChatStopReason(response.stopReason) }],
    usage: encodeChatUsage(response.usage),
  };
}
