/**
 * Content parts of the canonical model: what a message, a system prompt or a tool result holds.
 * Every wire format decodes into these and encodes from them.
 */

/** Prompt-cache marker (Messages `cache_control`); carried where the target can express it. */
export interface CacheControl {
  readonly type: "ephemeral";
  /** e.g. "5m" or "1h"; absent = the provider's default. */
  readonly ttl?: string;
}

export interface TextPart {
  readonly type: "text";
  readonly text: string;
  readonly cacheControl?: CacheControl;
}

/** Where binary content comes from. `file` is a provider-side file id (Responses/Chat `file_id`). */
export type MediaSource =
  | { readonly kind: "base64"; readonly mediaType: string; readonly data: string }
  | { readonly kind: "url"; readonly url: string }
  | { readonly kind: "file"; readonly fileId: string };

export interface ImagePart {
  readonly type: "image";
  readonly source: MediaSource;
  /** OpenAI `detail` (low | high | auto); dropped where the target has no such field. */
  readonly detail?: string;
  readonly cacheControl?: CacheControl;
}

/** A document (PDF or plain text). `text` sources are inline plain text. */
export interface DocumentPart {
  readonly type: "document";
  readonly source: MediaSource | { readonly kind: "text"; readonly text: string; readonly mediaType?: string };
  readonly title?: string;
  /** OpenAI `filename`. */
  readonly filename?: string;
  readonly cacheControl?: CacheControl;
}

/** A call the assistant made. `arguments` is the JSON text exactly as produced (may be partial only in streams). */
export interface ToolCallPart {
  readonly type: "tool_call";
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  readonly cacheControl?: CacheControl;
}

export type ToolResultContent = TextPart | ImagePart | DocumentPart;

/** The result of a tool call, sent back by the client. */
export interface ToolResultPart {
  readonly type: "tool_result";
  readonly callId: string;
  readonly content: readonly ToolResultContent[];
  readonly isError: boolean;
  readonly cacheControl?: CacheControl;
}

/**
 * Model reasoning. `signature` is opaque and bound to the model that produced it: Messages
 * `signature`, or for a Responses upstream its `encrypted_content` (with the item id, packed by
 * that adapter). It must go back to the same model unchanged.
 */
export interface ThinkingPart {
  readonly type: "thinking";
  readonly text: string;
  readonly signature?: string;
}

/** Reasoning the provider keeps encrypted (Messages `redacted_thinking`). */
export interface RedactedThinkingPart {
  readonly type: "redacted_thinking";
  readonly data: string;
}

export type ContentPart =
  | TextPart
  | ImagePart
  | DocumentPart
  | ToolCallPart
  | ToolResultPart
  | ThinkingPart
  | RedactedThinkingPart;

/** What an assistant answer can contain. */
export type OutputPart = TextPart | ToolCallPart | ThinkingPart | RedactedThinkingPart;
