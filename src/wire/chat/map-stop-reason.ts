import type { StopReason, UnifiedStopReason } from "../../canonical/stop-reason.ts";
import type { ChatFinishReason } from "./shapes.ts";

/**
 * Canonical stop reason → Chat `finish_reason`. Chat cannot say which stop sequence matched, nor
 * that a server-tool loop paused, so both read as a plain `stop`.
 */
export function encodeChatStopReason(stop: StopReason): ChatFinishReason {
  const unified: UnifiedStopReason = stop.unified;
  switch (unified) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "max_tokens":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
    case "content_filter":
      return "content_filter";
    default: {
      const unreachable: never = unified;
      return unreachable;
    }
  }
}

/**
 * Chat `finish_reason` → canonical stop reason, raw value kept. `refused` is set when the
 * message carried a `refusal`: the API reports such answers with a plain `stop`.
 */
export function decodeChatStopReason(raw: string | null, refused = false): StopReason {
  if (refused && (raw === "stop" || raw === null)) return { unified: "refusal", raw };
  switch (raw) {
    case "length":
      return { unified: "max_tokens", raw };
    case "tool_calls":
    case "function_call":
      return { unified: "tool_use", raw };
    case "content_filter":
      return { unified: "content_filter", raw };
    default:
      // `stop`, null and values other providers invent all mean the answer simply ended.
      return { unified: "end_turn", raw };
  }
}
