/**
 * An answer in the canonical model's terms, written for the replay suite independently of the
 * gateway's own decoders and encoders, so that the suite checks them rather than repeats them.
 */
export type UnifiedStop = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal" | "pause_turn" | "content_filter";

export interface AnswerUsage {
  /** All prompt tokens, cached ones included. */
  readonly input: number;
  /** Output tokens, reasoning included. */
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly reasoning: number;
}

export interface AnswerShape {
  readonly text: string;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly args: unknown }[];
  readonly thinking: readonly { readonly text: string; readonly signature?: string }[];
  /** Redacted thinking blocks' data. */
  readonly redacted: readonly string[];
  readonly stop: UnifiedStop;
  readonly usage: AnswerUsage;
  /** Block or item types with no canonical form (server tools, compaction …), in order. */
  readonly other: readonly string[];
}

/** `inStream`: the failure comes after the answer started, so a client sees it in the stream, without a status. */
export type Truth =
  | { readonly kind: "answer"; readonly answer: AnswerShape }
  | { readonly kind: "error"; readonly status: number; readonly inStream: boolean };

export type Json = Record<string, unknown>;
export const obj = (v: unknown): Json => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const num = (v: unknown): number => (typeof v === "number" ? v : 0);
export const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** Tool arguments as a value: a JSON text parsed ("" is no arguments), an object as it is. */
export function argsOf(value: unknown): unknown {
  if (typeof value !== "string") return value ?? {};
  return value.trim() === "" ? {} : (JSON.parse(value) as unknown);
}
