import type { RawAnswer } from "../../cache/raw-answer.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import type { StopReason } from "../../canonical/stop-reason.ts";
import type { Usage } from "../../canonical/usage.ts";

/** How a committed stream ended: its final usage and stop reason, or the failure sent in-stream. */
export interface StreamOutcome {
  /** The usage the upstream reported for the whole answer, when it did. */
  readonly usage?: Usage;
  /** What the upstream reported at the start (Messages `message_start`: the input tokens), when it did. */
  readonly startUsage?: Usage;
  /** The tokens of the text sent to the client, counted by the gateway when asked (for a stream whose upstream never said). */
  sentTokens(): number;
  readonly stopReason?: StopReason;
  /** The message of the in-stream error event sent, when the stream failed. */
  readonly error?: string;
  readonly clientAborted: boolean;
  /** The whole answer, rebuilt from the stream when collection was asked for and it finished cleanly. */
  readonly response?: CanonicalResponse;
  /** Passed-through streams: every event sent, kept as it is when collection was asked for and nothing failed. */
  readonly raw?: RawAnswer;
}
