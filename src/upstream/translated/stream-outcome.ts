import type { RawAnswer } from "../../cache/raw-answer.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import type { StopReason } from "../../canonical/stop-reason.ts";
import type { StreamTokens } from "../../canonical/stream-tokens.ts";

/** How a committed stream ended: its tokens and stop reason, or the failure sent in-stream. */
export interface StreamOutcome extends StreamTokens {
  readonly stopReason?: StopReason;
  /** The message of the in-stream error event sent, when the stream failed. */
  readonly error?: string;
  readonly clientAborted: boolean;
  /** The whole answer, rebuilt from the stream when collection was asked for and it finished cleanly. */
  readonly response?: CanonicalResponse;
  /** Passed-through streams: every event sent, kept as it is when collection was asked for and nothing failed. */
  readonly raw?: RawAnswer;
}
