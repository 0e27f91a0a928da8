import { makeId } from "../make-id.ts";
import { splitJson, splitText } from "../split-text.ts";
import { sseFrame } from "../sse-frame.ts";
import type { SimAnswer } from "../types.ts";
import { messagesBlocks, messagesStopReason, messagesUsage } from "./build-messages-body.ts";
import type { MessagesContentBlock, MessagesDelta, MessagesStreamEvent } from "../../wire/messages/shapes.ts";
import type { MessagesInput } from "./read-messages-request.ts";

/** One event under the SSE name of its type. */
const eventFrame = (event: MessagesStreamEvent): string => sseFrame(event.type, event);

const PING = eventFrame({ type: "ping" });
const MESSAGE_STOP = eventFrame({ type: "message_stop" });

/**
 * The Messages event sequence: message_start → per block start, deltas, stop (contiguous
 * indices) with one ping after the first block start → message_delta (cumulative usage) → message_stop.
 */
export function buildMessagesStream(input: MessagesInput, answer: SimAnswer): string[] {
  const blocks = messagesBlocks(input, answer);
  // message_start never carries the thinking count: it comes with message_delta.
  const { output_tokens_details: _thinking, ...usage } = messagesUsage(input, 1, 0);
  const frames: string[] = [
    eventFrame({
      type: "message_start",
      message: {
        id: makeId("msg_", input.seed),
        type: "message",
        role: "assistant",
        model: input.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage,
      },
    }),
  ];
  let index = 0;
  const start = (block: MessagesContentBlock): void => {
    frames.push(eventFrame({ type: "content_block_start", index, content_block: block }));
    if (index === 0) frames.push(PING);
  };
  const delta = (body: MessagesDelta): void => {
    frames.push(eventFrame({ type: "content_block_delta", index, delta: body }));
  };
  const stop = (): void => {
    frames.push(eventFrame({ type: "content_block_stop", index }));
    index++;
  };
  if (blocks.thinking) {
    start({ type: "thinking", thinking: "", signature: "" });
    for (const piece of splitText(blocks.thinking.text)) delta({ type: "thinking_delta", thinking: piece });
    delta({ type: "signature_delta", signature: blocks.thinking.signature });
    stop();
  }
  if (blocks.text !== "") {
    start({ type: "text", text: "" });
    for (const piece of splitText(blocks.text)) delta({ type: "text_delta", text: piece });
    stop();
  }
  for (const use of blocks.toolUses) {
    start({ type: "tool_use", id: use.id, name: use.name, input: {} });
    for (const piece of splitJson(use.json)) delta({ type: "input_json_delta", partial_json: piece });
    stop();
  }
  if (index === 0) frames.push(PING);
  const final = messagesUsage(input, answer.outputTokens, answer.reasoningTokens);
  frames.push(
    eventFrame({
      type: "message_delta",
      delta: { stop_reason: messagesStopReason(answer.stop), stop_sequence: answer.stopSequence, stop_details: null },
      usage: {
        input_tokens: final.input_tokens,
        cache_creation_input_tokens: final.cache_creation_input_tokens,
        cache_read_input_tokens: final.cache_read_input_tokens,
        output_tokens: final.output_tokens,
        output_tokens_details: final.output_tokens_details,
      },
    }),
    MESSAGE_STOP,
  );
  return frames;
}
