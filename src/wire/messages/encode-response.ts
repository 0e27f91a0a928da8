import type { OutputPart } from "../../canonical/content-part.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import type { EncodeContext } from "../client-format.ts";
import { encodeMessagesStopReason } from "./map-stop-reason.ts";
import { encodeMessagesUsage } from "./map-usage.ts";
import { toMessagesToolId } from "./map-tool-id.ts";
import { parseToolInput } from "./parse-tool-input.ts";
import { showAnswerId } from "../show-answer-id.ts";
import type { MessagesContentBlock, MessagesMessage } from "./shapes.ts";

function encodeOutputBlock(part: OutputPart): MessagesContentBlock {
  switch (part.type) {
    case "text":
      // No `citations` key: the API leaves it out when there are none, and strict clients reject null.
      return { type: "text", text: part.text };
    case "thinking":
      return { type: "thinking", thinking: part.text, signature: part.signature ?? "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: part.data };
    case "tool_call":
      return { type: "tool_use", id: toMessagesToolId(part.id), name: part.name, input: parseToolInput(part.arguments).input };
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

/** The canonical answer → a Messages `Message` body, showing the tier as `model`. */
export function encodeMessagesResponse(response: CanonicalResponse, ctx: EncodeContext): MessagesMessage {
  const stop = encodeMessagesStopReason(response.stopReason);
  return {
    id: showAnswerId("messages", response.id),
    type: "message",
    role: "assistant",
    model: ctx.model,
    content: response.content.map(encodeOutputBlock),
    stop_reason: stop.stop_reason,
    stop_sequence: stop.stop_sequence,
    // A refusal's category is not known across formats: no details, as the API sends when it has none.
    stop_details: null,
    usage: encodeMessagesUsage(response.usage),
  };
}
