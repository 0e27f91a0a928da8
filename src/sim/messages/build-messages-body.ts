import { makeId } from "../make-id.ts";
import { signThinking } from "../sign-thinking.ts";
import type { SimAnswer, SimStop } from "../types.ts";
import type { MessagesContentBlock, MessagesMessage, MessagesStopReason, MessagesUsage } from "../../wire/messages/shapes.ts";
import type { MessagesInput } from "./read-messages-request.ts";

const STOP_REASONS: Record<SimStop, MessagesStopReason> = {
  end: "end_turn",
  length: "max_tokens",
  stop_sequence: "stop_sequence",
  tool: "tool_use",
};

export const messagesStopReason = (stop: SimStop): MessagesStopReason => STOP_REASONS[stop];

export interface MessagesBlocks {
  thinking: { text: string; signature: string } | null;
  text: string;
  toolUses: { id: string; name: string; input: unknown; json: string }[];
}

/** The content of the answer in Anthropic terms, shared by the JSON body and the stream. */
export function messagesBlocks(input: MessagesInput, answer: SimAnswer): MessagesBlocks {
  const thinkingText = input.omitThinking ? "" : answer.reasoningText;
  return {
    thinking: input.effort === null ? null : { text: thinkingText, signature: signThinking(input.model, thinkingText) },
    text: answer.text,
    toolUses: answer.toolCalls.map((call, i) => ({
      id: makeId("toolu_", input.seed, i),
      name: call.name,
      input: JSON.parse(call.arguments) as unknown,
      json: call.arguments,
    })),
  };
}

/** Anthropic usage: `input_tokens` excludes both cache counts; output includes thinking. */
export function messagesUsage(input: MessagesInput, outputTokens: number, thinkingTokens: number): MessagesUsage {
  const { total, cacheRead, cacheWrite } = input.usage;
  return {
    input_tokens: total - cacheRead - cacheWrite,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { thinking_tokens: thinkingTokens },
    service_tier: "standard",
  };
}

/** A complete non-stream `Message`. */
export function buildMessagesBody(input: MessagesInput, answer: SimAnswer): MessagesMessage {
  const blocks = messagesBlocks(input, answer);
  const content: MessagesContentBlock[] = [];
  if (blocks.thinking) content.push({ type: "thinking", thinking: blocks.thinking.text, signature: blocks.thinking.signature });
  // No `citations` key when there are none, as the API sends it.
  if (blocks.text !== "") content.push({ type: "text", text: blocks.text });
  for (const use of blocks.toolUses) content.push({ type: "tool_use", id: use.id, name: use.name, input: use.input });
  return {
    id: makeId("msg_", input.seed),
    type: "message",
    role: "assistant",
    model: input.model,
    content,
    stop_reason: messagesStopReason(answer.stop),
    stop_sequence: answer.stopSequence,
    stop_details: null,
    usage: messagesUsage(input, answer.outputTokens, answer.reasoningTokens),
  };
}
