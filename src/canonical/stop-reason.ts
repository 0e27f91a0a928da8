/**
 * Why an answer ended, unified across formats, with the upstream's own value kept beside it.
 * `error` is used only when a stream ends in failure (never rendered as a clean stop).
 */
export const UNIFIED_STOP_REASONS = [
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "tool_use",
  "refusal",
  "pause_turn",
  "content_filter",
] as const;

export type UnifiedStopReason = (typeof UNIFIED_STOP_REASONS)[number];

export interface StopReason {
  readonly unified: UnifiedStopReason;
  /** The upstream's value as sent (e.g. "tool_calls", "length", "incomplete:max_output_tokens"), or null. */
  readonly raw: string | null;
  /** The stop sequence that matched, when `unified` is `stop_sequence` and the upstream says which. */
  readonly stopSequence?: string;
}
