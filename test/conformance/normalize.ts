/**
 * Reads an answer of any of the three formats into one comparable shape, written independently
 * of the gateway's own mapping so that the conformance suite checks it rather than repeats it.
 */
export type Stop = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "other";

export interface Normalized {
  readonly text: string;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly args: unknown }[];
  /** All prompt tokens, cached included. */
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  /** null when the format has no field for it. */
  readonly cacheWrite: number | null;
  readonly stop: Stop;
  readonly thinking: readonly { readonly text: string; readonly signature: string | undefined }[];
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === "object" ? (v as Json) : {});
const num = (v: unknown): number => (typeof v === "number" ? v : 0);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const parseArgs = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v === "" ? "{}" : v) : v);

export function normalizeMessages(body: unknown): Normalized {
  const b = obj(body);
  const content = arr(b.content).map(obj);
  const usage = obj(b.usage);
  const read = num(usage.cache_read_input_tokens);
  const write = num(usage.cache_creation_input_tokens);
  const stops: Record<string, Stop> = { end_turn: "end_turn", tool_use: "tool_use", max_tokens: "max_tokens", stop_sequence: "stop_sequence" };
  return {
    text: content.filter((c) => c.type === "text").map((c) => String(c.text)).join(""),
    toolCalls: content.filter((c) => c.type === "tool_use").map((c) => ({ id: String(c.id), name: String(c.name), args: parseArgs(c.input) })),
    input: num(usage.input_tokens) + read + write,
    output: num(usage.output_tokens),
    cacheRead: read,
    cacheWrite: write,
    stop: stops[String(b.stop_reason)] ?? "other",
    thinking: content.filter((c) => c.type === "thinking").map((c) => ({ text: String(c.thinking), signature: typeof c.signature === "string" ? c.signature : undefined })),
  };
}

export function normalizeChat(body: unknown): Normalized {
  const b = obj(body);
  const choice = obj(arr(b.choices)[0]);
  const message = obj(choice.message);
  const usage = obj(b.usage);
  const stops: Record<string, Stop> = { stop: "end_turn", tool_calls: "tool_use", length: "max_tokens" };
  return {
    text: typeof message.content === "string" ? message.content : "",
    toolCalls: arr(message.tool_calls).map(obj).map((c) => ({ id: String(c.id), name: String(obj(c.function).name), args: parseArgs(obj(c.function).arguments) })),
    input: num(usage.prompt_tokens),
    output: num(usage.completion_tokens),
    cacheRead: num(obj(usage.prompt_tokens_details).cached_tokens),
    cacheWrite: null,
    stop: stops[String(choice.finish_reason)] ?? "other",
    thinking: [],
  };
}

export function normalizeResponses(body: unknown): Normalized {
  const b = obj(body);
  const output = arr(b.output).map(obj);
  const usage = obj(b.usage);
  const calls = output.filter((o) => o.type === "function_call");
  let stop: Stop = "other";
  if (b.status === "completed") stop = calls.length > 0 ? "tool_use" : "end_turn";
  else if (b.status === "incomplete" && obj(b.incomplete_details).reason === "max_output_tokens") stop = "max_tokens";
  return {
    text: output
      .filter((o) => o.type === "message")
      .flatMap((o) => arr(o.content).map(obj))
      .filter((c) => c.type === "output_text")
      .map((c) => String(c.text))
      .join(""),
    toolCalls: calls.map((c) => ({ id: String(c.call_id), name: String(c.name), args: parseArgs(c.arguments) })),
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheRead: num(obj(usage.input_tokens_details).cached_tokens),
    cacheWrite: null,
    stop,
    thinking: output
      .filter((o) => o.type === "reasoning")
      .map((o) => ({ text: arr(o.summary).map(obj).map((s) => String(s.text)).join("\n\n"), signature: typeof o.encrypted_content === "string" ? o.encrypted_content : undefined })),
  };
}

export const NORMALIZE = { messages: normalizeMessages, chat: normalizeChat, responses: normalizeResponses } as const;
