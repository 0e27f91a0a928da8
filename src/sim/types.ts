import type { Fault } from "../config/schema.ts";

/** What a request asks of the sim once its wire format is read: the three handlers fill it alike. */
export interface SimTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (Anthropic `input_schema`, OpenAI `parameters`). */
  schema: unknown;
}

export type SimToolChoice = { kind: "auto" } | { kind: "none" } | { kind: "any" } | { kind: "tool"; name: string };

export interface SimUsageInput {
  /** All input tokens, cached included. */
  total: number;
  /** Tokens of everything before the newest conversation message (a warm prompt-cache prefix). */
  cacheRead: number;
  /** Tokens of the newest message when it asks to be cached (Anthropic `cache_control`). */
  cacheWrite: number;
}

export interface SimInput {
  model: string;
  /** Hash of the raw request body: the source of every id and of the filler choice. */
  seed: bigint;
  /** Text of the newest message when it is a user message ("" otherwise); directives included. */
  userText: string;
  /** Text of the first trailing tool result, when the newest message is one. */
  toolResult: string | null;
  tools: SimTool[];
  toolChoice: SimToolChoice;
  parallelTools: boolean;
  maxTokens: number | null;
  stop: string[];
  /** Reasoning effort when reasoning is on (`null` = off). */
  effort: string | null;
  usage: SimUsageInput;
}

/** Per-request controls: a fault plus the answer-shaping keys only directives and the header carry. */
export interface SimDirective extends Fault {
  /** `status` applies to the first N requests with this body for this model only; later ones are answered. */
  times?: number;
  /** `retry-after` / `retry-after-ms` on the error response of `status`, as written. */
  retryAfter?: string;
  retryAfterMs?: number;
  /** Stream: this many ms between events (a slow stream that stays open; the first event goes at once). */
  gapMs?: number;
  words?: number;
  tools?: string[];
  args?: Record<string, unknown>;
}

export interface SimToolCall {
  name: string;
  /** JSON text of the arguments object. */
  arguments: string;
}

export type SimStop = "end" | "length" | "stop_sequence" | "tool";

export interface SimAnswer {
  /** Visible reasoning text (Anthropic thinking, Responses summary); empty when none. */
  reasoningText: string;
  reasoningTokens: number;
  text: string;
  toolCalls: SimToolCall[];
  stop: SimStop;
  stopSequence: string | null;
  outputTokens: number;
}

/** One incoming request as the handlers see it: the body read and parsed once. */
export interface SimRequest {
  /** Parsed JSON body; undefined when the body was not valid JSON. */
  body: unknown;
  invalidJson: boolean;
  raw: string;
  /** Hash of `raw`: the source of ids and of every deterministic choice. */
  seed: bigint;
  headers: Headers;
  signal: AbortSignal;
  faults: Readonly<Record<string, Fault>>;
  /** Faults with `times` played so far, by model and request body (one map per sim server). */
  faultCounts: Map<string, number>;
}

/** What a request reader returns: the value, or the message of a 400. */
export type ReadResult<T> = { ok: true; value: T } | { ok: false; message: string; param?: string; code?: string };
