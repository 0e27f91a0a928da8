import type { WireFormat } from "../../src/canonical/wire-format.ts";
import type { AnswerShape, UnifiedStop } from "./answer-shape.ts";
import type { ClientKind, Observed } from "./ask-clients.ts";

/** A stop reason in the words of a client of `format` (docs/translation.md, stop reasons). */
const STOP_WORDS: Readonly<Record<ClientKind, Readonly<Record<WireFormat, Readonly<Record<UnifiedStop, string>>>>>> = {
  sdk: {
    messages: { end_turn: "end_turn", max_tokens: "max_tokens", stop_sequence: "stop_sequence", tool_use: "tool_use", refusal: "refusal", pause_turn: "pause_turn", content_filter: "refusal" },
    chat: { end_turn: "stop", max_tokens: "length", stop_sequence: "stop", tool_use: "tool_calls", refusal: "content_filter", pause_turn: "stop", content_filter: "content_filter" },
    responses: {
      end_turn: "completed",
      max_tokens: "incomplete:max_output_tokens",
      stop_sequence: "completed",
      tool_use: "completed",
      refusal: "incomplete:content_filter",
      pause_turn: "completed",
      content_filter: "incomplete:content_filter",
    },
  },
  "ai-sdk": {
    messages: { end_turn: "stop", max_tokens: "length", stop_sequence: "stop", tool_use: "tool-calls", refusal: "content-filter", pause_turn: "stop", content_filter: "content-filter" },
    chat: { end_turn: "stop", max_tokens: "length", stop_sequence: "stop", tool_use: "tool-calls", refusal: "content-filter", pause_turn: "stop", content_filter: "content-filter" },
    responses: { end_turn: "stop", max_tokens: "length", stop_sequence: "stop", tool_use: "tool-calls", refusal: "content-filter", pause_turn: "stop", content_filter: "content-filter" },
  },
};

/** Messages tool-use ids must match this; the other formats take any string. */
const MESSAGES_ID = /^[a-zA-Z0-9_-]+$/;

/** The thinking a client shows, as one text: clients differ in how they split it into parts. */
export const thinkingText = (parts: readonly { readonly text: string }[]): string =>
  parts
    .map((p) => p.text)
    .filter((t) => t !== "")
    .join("\n\n");

export interface Mismatch {
  readonly field: string;
  readonly expected: unknown;
  readonly got: unknown;
}

/**
 * How a translated answer read by `kind` in `format` differs from the recording's canonical answer.
 * Fields a client does not report are not compared; everything it reports must be equal.
 */
export function compareTranslated(truth: AnswerShape, got: Observed, kind: ClientKind, format: WireFormat): Mismatch[] {
  const out: Mismatch[] = [];
  const check = (field: string, expected: unknown, value: unknown): void => {
    if (!Bun.deepEquals(expected, value)) out.push({ field, expected, got: value });
  };
  check("text", truth.text, got.text);
  check(
    "tool calls",
    truth.toolCalls.map((c) => [c.name, c.args]),
    got.toolCalls.map((c) => [c.name, c.args]),
  );
  truth.toolCalls.forEach((call, i) => {
    const id = got.toolCalls[i]?.id;
    if (format === "messages" && !MESSAGES_ID.test(call.id)) {
      if (id === undefined || !MESSAGES_ID.test(id)) out.push({ field: `tool call ${i} id`, expected: "an id valid for Messages", got: id });
    } else check(`tool call ${i} id`, call.id, id);
  });
  // @ai-sdk/openai's Chat model reads no reasoning text: that client cannot show it.
  if (!(kind === "ai-sdk" && format === "chat")) check("thinking", thinkingText(truth.thinking), thinkingText(got.thinking));
  if (format === "messages" && kind === "sdk") check("redacted thinking", truth.redacted, got.redacted);
  // Responses has no stop reason of its own: the AI SDK calls any answer with function calls a tool-call stop.
  const stop = kind === "ai-sdk" && format === "responses" && truth.toolCalls.length > 0 && truth.stop !== "max_tokens" ? "tool-calls" : STOP_WORDS[kind][format][truth.stop];
  check("stop", stop, got.stop);
  for (const key of ["input", "output", "cacheRead", "cacheWrite", "reasoning"] as const) {
    const value = got.usage[key];
    if (value !== undefined) check(`usage.${key}`, truth.usage[key], value);
  }
  return out;
}
