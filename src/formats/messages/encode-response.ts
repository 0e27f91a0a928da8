import type { OutputPart } from "../../canonical/content-part.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import type { EncodeContext } from "../client-format.ts";
import { stopReasonToMessages } from "./map-stop-reason.ts";
import { usageToMessages } from "./map-usage.ts";
import { parseToolInput } from "./parse-tool-input.ts";
import type { JsonObject } from "./read-fields.ts";

function encodeOutputBlock(part: OutputPart): JsonObject {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text, citations: null };
    case "thinking":
      return { type: "thinking", thinking: part.text, signature: part.signature ?? "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: part.data };
    case "tool_call":
      return { type: "tool_use", id: part.id, name: part.name, input: parseToolInput(part.arguments).input };
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

/** A refusal carries its details object; the category is unknown across formats. */
export function stopDetails(stopReason: string): JsonObject | null {
  return stopReason === "refusal" ? { type: "refusal", category: null, explanation: null } : null;
}

/** The canonical answer → a Messages `Message` body, showing the tier as `model`. */
export function encodeMessagesResponse(response: CanonicalResponse, ctx: EncodeContext): JsonObject {
  const stop = stopReasonToMessages(response.stopReason);
  return {
    id: response.id,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content: response.content.map(encodeOutputBlock),
    stop_reason: stop.stop_reason,
    stop_sequence: stop.stop_sequence,
    stop_details: stopDetails(stop.stop_reason),
    container: null,
    usage: usageToMessages(response.usage),
  };
}
