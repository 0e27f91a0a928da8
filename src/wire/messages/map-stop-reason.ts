import type { StopReason, UnifiedStopReason } from "../../canonical/stop-reason.ts";
import type { MessagesStopReason } from "./shapes.ts";

/** Every `stop_reason` the Messages API sends, with its unified meaning. */
const FROM_MESSAGES: Readonly<Record<MessagesStopReason, UnifiedStopReason>> = {
  end_turn: "end_turn",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  tool_use: "tool_use",
  refusal: "refusal",
  pause_turn: "pause_turn",
  // The context ran out rather than the caller's cap; for every other format that is a length stop.
  model_context_window_exceeded: "max_tokens",
};

const TO_MESSAGES: Readonly<Record<UnifiedStopReason, MessagesStopReason>> = {
  end_turn: "end_turn",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  tool_use: "tool_use",
  refusal: "refusal",
  pause_turn: "pause_turn",
  // Messages has no filter stop; a refusal is its closest meaning (wire-formats §6).
  content_filter: "refusal",
};

const isMessagesStopReason = (value: string): value is MessagesStopReason => Object.hasOwn(FROM_MESSAGES, value);

/** A Messages `stop_reason` (and `stop_sequence`) → the canonical stop reason. Unknown values read as `end_turn`. */
export function decodeMessagesStopReason(raw: unknown, stopSequence?: unknown): StopReason {
  const value = typeof raw === "string" ? raw : null;
  const unified = (value !== null && isMessagesStopReason(value) ? FROM_MESSAGES[value] : undefined) ?? "end_turn";
  if (unified === "stop_sequence" && typeof stopSequence === "string") return { unified, raw: value, stopSequence };
  return { unified, raw: value };
}

/**
 * The canonical stop reason → Messages `stop_reason` and `stop_sequence`. A raw value that is
 * itself a Messages reason with the same meaning is kept (so `model_context_window_exceeded`
 * survives a Messages upstream).
 */
export function encodeMessagesStopReason(stop: StopReason): { stop_reason: MessagesStopReason; stop_sequence: string | null } {
  const raw = stop.raw !== null && isMessagesStopReason(stop.raw) ? stop.raw : null;
  const reason = raw !== null && FROM_MESSAGES[raw] === stop.unified ? raw : TO_MESSAGES[stop.unified];
  return { stop_reason: reason, stop_sequence: reason === "stop_sequence" ? (stop.stopSequence ?? null) : null };
}
