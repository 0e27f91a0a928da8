/**
 * The Messages API's answers as they travel: the gateway writes them to its clients and the
 * simulator sends them as an upstream would. Fields the gateway never writes but the API may send
 * are optional.
 */

/** Every `stop_reason` the API sends. */
export type MessagesStopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal" | "pause_turn" | "model_context_window_exceeded";

/** The `usage` object: `input_tokens` leaves out both cache counts; output includes thinking. */
export interface MessagesUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation?: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
  readonly output_tokens: number;
  readonly output_tokens_details?: { readonly thinking_tokens: number };
  readonly service_tier?: string;
}

/** A block of an answer's `content`; a text block has no `citations` key when there are none, as the API sends it. */
export type MessagesContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "redacted_thinking"; readonly data: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown };

/** A non-stream answer, `type: "message"`. */
export interface MessagesMessage {
  readonly id: string;
  readonly type: "message";
  readonly role: "assistant";
  readonly model: string;
  readonly content: readonly MessagesContentBlock[];
  readonly stop_reason: MessagesStopReason | null;
  readonly stop_sequence: string | null;
  readonly stop_details: null;
  readonly usage: MessagesUsage;
}

/** What a `content_block_delta` adds to its block. */
export type MessagesDelta =
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "thinking_delta"; readonly thinking: string }
  | { readonly type: "signature_delta"; readonly signature: string }
  | { readonly type: "input_json_delta"; readonly partial_json: string };

/** One event of a stream, under the SSE event name of its `type`. */
export type MessagesStreamEvent =
  | { readonly type: "message_start"; readonly message: MessagesMessage }
  | { readonly type: "content_block_start"; readonly index: number; readonly content_block: MessagesContentBlock }
  | { readonly type: "content_block_delta"; readonly index: number; readonly delta: MessagesDelta }
  | { readonly type: "content_block_stop"; readonly index: number }
  | {
      readonly type: "message_delta";
      readonly delta: { readonly stop_reason: MessagesStopReason | null; readonly stop_sequence: string | null; readonly stop_details?: null };
      /** The counts so far; an upstream may send only some of them. */
      readonly usage: Partial<MessagesUsage>;
    }
  | { readonly type: "message_stop" }
  | { readonly type: "ping" }
  | { readonly type: "error"; readonly error: { readonly type: string; readonly message: string } };
