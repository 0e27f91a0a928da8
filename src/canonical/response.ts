import type { OutputPart } from "./content-part.ts";
import type { StopReason } from "./stop-reason.ts";
import type { Usage } from "./usage.ts";

/** A complete (non-streamed) answer. */
export interface CanonicalResponse {
  /** The upstream's id for the answer (`msg_…`, `chatcmpl-…`, `resp_…`). */
  readonly id: string;
  /** The upstream model id as reported; the client is shown the tier instead. */
  readonly model: string;
  readonly content: readonly OutputPart[];
  readonly stopReason: StopReason;
  readonly usage: Usage;
}
