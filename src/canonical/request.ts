import type { CacheControl, ContentPart, TextPart } from "./content-part.ts";
import type { Effort } from "./effort.ts";

/**
 * A message of the conversation. `system` appears here only for instructions placed in the middle
 * of the history (Claude Code's system messages inside `messages`, Chat `system`/`developer`
 * messages after the first turn, Responses system/developer input items); leading ones are in
 * `CanonicalRequest.system`. `developer` records that the client used that role.
 */
export interface CanonicalMessage {
  readonly role: "user" | "assistant" | "system";
  readonly content: readonly ContentPart[];
  readonly developer?: boolean;
}

export type JsonSchema = Readonly<Record<string, unknown>>;

/** A function tool. */
export interface FunctionTool {
  readonly kind: "function";
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: JsonSchema;
  /** OpenAI `strict`. */
  readonly strict?: boolean;
  readonly cacheControl?: CacheControl;
}

/**
 * A tool that is not a plain function (Messages server/built-in tools such as `web_search_20250305`,
 * Responses `web_search`, `namespace`, `custom`, `local_shell` …). `raw` is the client's definition;
 * an adapter for the same format may send it as is, others flatten or drop it with a warning.
 */
export interface BuiltinTool {
  readonly kind: "builtin";
  readonly format: "messages" | "chat" | "responses";
  readonly type: string;
  readonly name?: string;
  readonly raw: Readonly<Record<string, unknown>>;
}

export type Tool = FunctionTool | BuiltinTool;

/** Messages `any` = OpenAI `required`. */
export type ToolChoice =
  | { readonly type: "auto" }
  | { readonly type: "none" }
  | { readonly type: "required" }
  | { readonly type: "tool"; readonly name: string };

export type ResponseFormat =
  | { readonly type: "text" }
  | { readonly type: "json_object" }
  | {
      readonly type: "json_schema";
      readonly name: string;
      readonly schema: JsonSchema;
      readonly description?: string;
      readonly strict?: boolean;
    };

export interface Sampling {
  readonly temperature?: number;
  readonly topP?: number;
  /** Messages only. */
  readonly topK?: number;
  /** Chat only. */
  readonly presencePenalty?: number;
  readonly frequencyPenalty?: number;
  readonly seed?: number;
}

/**
 * The request every client format decodes into and every upstream adapter encodes from.
 * Fields a format has no place for are left unset; fields the canonical model has no place for
 * stay in `extra` (the client's own top-level fields, by wire name) and are only ever sent to an
 * upstream of the same format.
 */
export interface CanonicalRequest {
  readonly system: readonly TextPart[];
  readonly messages: readonly CanonicalMessage[];
  readonly tools: readonly Tool[];
  readonly toolChoice?: ToolChoice;
  /** false = at most one tool call per turn (Messages `disable_parallel_tool_use`, OpenAI `parallel_tool_calls: false`). */
  readonly parallelToolCalls?: boolean;
  readonly maxOutputTokens?: number;
  readonly sampling: Sampling;
  readonly stop: readonly string[];
  readonly responseFormat?: ResponseFormat;
  readonly stream: boolean;
  /** Chat `stream_options.include_usage`; other formats always report usage. */
  readonly includeUsage?: boolean;
  /** End-user id: Messages `metadata.user_id`, OpenAI `user` / `safety_identifier`. */
  readonly user?: string;
  /** OpenAI `metadata` (string values). Messages has only `user_id`. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Effort the client asked for, if any; informational (the router decides the effort). */
  readonly clientEffort?: Effort;
  /** Responses `previous_response_id`; the conversation is held upstream. */
  readonly previousResponseId?: string;
  /** The client format's own fields with no canonical place (e.g. `prompt_cache_key`, `store`, `context_management`). */
  readonly extra: Readonly<Record<string, unknown>>;
}
