/**
 * The Chat Completions API's answers as they travel: the gateway writes them to its clients and
 * the simulator sends them as an upstream would. Fields the gateway never writes but the API may
 * send are optional.
 */

/** `finish_reason` values the API defines; `function_call` is the deprecated form of `tool_calls`. */
export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

/** The `usage` object: cached input counts inside the prompt, reasoning inside the completion. */
export interface ChatUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details?: { readonly cached_tokens: number; readonly cache_write_tokens?: number; readonly audio_tokens?: number };
  readonly completion_tokens_details?: {
    readonly reasoning_tokens: number;
    readonly audio_tokens?: number;
    readonly accepted_prediction_tokens?: number;
    readonly rejected_prediction_tokens?: number;
  };
}

export interface ChatToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

/** The assistant message of a choice; `reasoning_content` is the extension some providers use for thinking. */
export interface ChatAnswerMessage {
  readonly role: "assistant";
  readonly content: string | null;
  readonly refusal: string | null;
  readonly annotations: readonly unknown[];
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly ChatToolCall[];
}

/** A non-stream answer, `object: "chat.completion"`. */
export interface ChatCompletion {
  readonly id: string;
  readonly object: "chat.completion";
  readonly created: number;
  readonly model: string;
  readonly choices: readonly { readonly index: number; readonly message: ChatAnswerMessage; readonly logprobs: null; readonly finish_reason: ChatFinishReason }[];
  readonly usage: ChatUsage;
  readonly service_tier?: string;
}

/** What one stream chunk adds to a choice. */
export interface ChatDelta {
  readonly role?: "assistant";
  readonly content?: string | null;
  readonly refusal?: string | null;
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly {
    readonly index: number;
    readonly id?: string;
    readonly type?: "function";
    readonly function: { readonly name?: string; readonly arguments: string };
  }[];
}

/** One stream chunk, `object: "chat.completion.chunk"`; the last one carries the usage and no choice when it was asked for. */
export interface ChatChunk {
  readonly id: string;
  readonly object: "chat.completion.chunk";
  readonly created: number;
  readonly model: string;
  readonly service_tier?: string;
  readonly system_fingerprint?: string | null;
  readonly choices: readonly { readonly index: number; readonly delta: ChatDelta; readonly logprobs: null; readonly finish_reason: ChatFinishReason | null }[];
  readonly usage?: ChatUsage | null;
}
