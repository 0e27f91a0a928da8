import type { StopReason } from "./stop-reason.ts";
import type { Usage } from "./usage.ts";

/**
 * The canonical stream. Blocks are numbered from 0 in the order they start; every block that
 * starts stops before `finish`. Blocks may interleave (parallel tool calls). A stream ends with
 * exactly one `finish` or one `error`, never both, and nothing after it.
 */
export type BlockStart =
  | { readonly type: "text" }
  | { readonly type: "thinking" }
  | { readonly type: "redacted_thinking"; readonly data: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string };

export type StreamEvent =
  /** Usage here is what is known at the start (Messages `message_start` input tokens); may be absent. */
  | { readonly type: "start"; readonly id: string; readonly model: string; readonly usage?: Usage }
  | { readonly type: "block_start"; readonly index: number; readonly block: BlockStart }
  | { readonly type: "text_delta"; readonly index: number; readonly text: string }
  | { readonly type: "thinking_delta"; readonly index: number; readonly text: string }
  | { readonly type: "signature_delta"; readonly index: number; readonly signature: string }
  /** A fragment of a tool call's JSON arguments, forwarded as it arrives. */
  | { readonly type: "tool_args_delta"; readonly index: number; readonly fragment: string }
  | { readonly type: "block_stop"; readonly index: number }
  /** Usage is the final total for the answer. */
  | { readonly type: "finish"; readonly stopReason: StopReason; readonly usage: Usage }
  | { readonly type: "error"; readonly error: StreamError };

/** A failure after the stream started; rendered as the client format's in-stream error event. */
export interface StreamError {
  readonly status: number;
  /** A GatewayErrorType value. */
  readonly type: string;
  readonly message: string;
}
