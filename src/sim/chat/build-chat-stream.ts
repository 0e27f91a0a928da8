import { makeId } from "../make-id.ts";
import { splitJson, splitText } from "../split-text.ts";
import { sseData } from "../sse-frame.ts";
import type { SimAnswer } from "../types.ts";
import { chatFinishReason, chatToolCalls, chatUsage } from "./build-chat-body.ts";
import type { ChatChunk, ChatDelta, ChatFinishReason } from "../../wire/chat/shapes.ts";
import type { ChatInput } from "./read-chat-request.ts";

const DONE = "data: [DONE]\n\n";

/**
 * The Chat chunk sequence: role chunk, content deltas, tool-call deltas (id and name on the
 * first fragment of each index), the finish chunk, the `choices: []` usage chunk when
 * `include_usage` (earlier chunks then carry `usage: null`), and `[DONE]`.
 */
export function buildChatStream(input: ChatInput, answer: SimAnswer, created: number): string[] {
  const header = {
    id: makeId("chatcmpl-", input.seed),
    object: "chat.completion.chunk" as const,
    created,
    model: input.model,
    service_tier: "default",
    system_fingerprint: null,
  };
  const chunk = (index: number, delta: ChatDelta, finishReason: ChatFinishReason | null): string =>
    sseData({
      ...header,
      choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
      ...(input.includeUsage ? { usage: null } : {}),
    } satisfies ChatChunk);
  const frames: string[] = [];
  // With `n` > 1, each choice's chunks in turn, told apart by their `index`.
  for (let choice = 0; choice < input.choices; choice++) {
    frames.push(chunk(choice, { role: "assistant", content: "", refusal: null }, null));
    for (const piece of splitText(answer.text)) frames.push(chunk(choice, { content: piece }, null));
    for (const [index, call] of chatToolCalls(input, answer).entries()) {
      frames.push(chunk(choice, { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }, null));
      for (const piece of splitJson(call.function.arguments)) {
        frames.push(chunk(choice, { tool_calls: [{ index, function: { arguments: piece } }] }, null));
      }
    }
    frames.push(chunk(choice, {}, chatFinishReason(answer.stop)));
  }
  if (input.includeUsage) {
    frames.push(sseData({ ...header, choices: [], usage: chatUsage(input, answer) } satisfies ChatChunk));
  }
  frames.push(DONE);
  return frames;
}
