import { buildPatchAnswer } from "./build-patch-answer.ts";
import { chooseToolCalls } from "./choose-tool-calls.ts";
import { countWords, estimateTokens } from "./estimate-tokens.ts";
import { generateReasoning, generateText } from "./generate-text.ts";
import { quoteToolResult } from "./quote-tool-result.ts";
import type { SimAnswer, SimDirective, SimInput, SimStop, SimToolCall } from "./types.ts";

/** Hidden reasoning cost per effort; any unknown value counts as medium. */
const EFFORT_TOKENS: Record<string, number> = { minimal: 8, low: 16, medium: 32, high: 48, xhigh: 64, max: 80 };

/** The text up to the end of its `n`-th word. */
function cutToWords(text: string, n: number): string {
  if (n <= 0) return "";
  const match = new RegExp(`^\\s*(?:\\S+\\s+){${n - 1}}\\S+`).exec(text);
  return match ? match[0] : text;
}

function firstStop(text: string, stops: readonly string[]): { at: number; stop: string } | null {
  let best: { at: number; stop: string } | null = null;
  for (const stop of stops) {
    if (stop === "") continue;
    const at = text.indexOf(stop);
    if (at >= 0 && (best === null || at < best.at)) best = { at, stop };
  }
  return best;
}

/**
 * Decides the whole answer before any byte is written, the same way for all three APIs:
 * reasoning first (it counts toward the output cap), then text, then tool calls. Output tokens
 * are one per word of text plus ceil(chars/4) of each call's argument JSON plus reasoning tokens.
 */
export function planAnswer(input: SimInput, directive: SimDirective, userText: string): SimAnswer {
  const budget = input.maxTokens ?? Number.POSITIVE_INFINITY;
  const reasoningText = input.effort === null ? "" : generateReasoning(userText);
  const reasoningWanted = input.effort === null ? 0 : (EFFORT_TOKENS[input.effort] ?? EFFORT_TOKENS.medium ?? 32);
  if (reasoningWanted >= budget) {
    const spent = Math.max(0, budget);
    return { reasoningText, reasoningTokens: spent, text: "", toolCalls: [], stop: "length", stopSequence: null, outputTokens: spent };
  }

  let toolCalls: SimToolCall[] = chooseToolCalls(input, directive, userText);
  let text: string;
  if (input.toolResult !== null) text = `Tool result received: ${quoteToolResult(input.toolResult)}`;
  else if (toolCalls.length > 0) text = `Calling ${toolCalls.map((call) => call.name).join(", ")}.`;
  else text = buildPatchAnswer(input.model, input.userText) ?? generateText(input.model, userText, input.seed, directive.words);

  let stop: SimStop = toolCalls.length > 0 ? "tool" : "end";
  let stopSequence: string | null = null;
  const hit = firstStop(text, input.stop);
  if (hit) {
    text = text.slice(0, hit.at);
    stop = "stop_sequence";
    stopSequence = hit.stop;
    toolCalls = [];
  }

  const remaining = budget - reasoningWanted;
  let textTokens = countWords(text);
  let toolTokens = 0;
  for (const call of toolCalls) toolTokens += estimateTokens(call.arguments.length);
  if (textTokens > remaining) {
    text = cutToWords(text, remaining);
    textTokens = remaining;
    stop = "length";
    stopSequence = null;
    toolCalls = [];
    toolTokens = 0;
  } else if (textTokens + toolTokens > remaining) {
    // A call cut mid-arguments would be unusable; drop the calls and report the length stop.
    stop = "length";
    toolCalls = [];
    toolTokens = 0;
  }
  return {
    reasoningText,
    reasoningTokens: reasoningWanted,
    text,
    toolCalls,
    stop,
    stopSequence,
    outputTokens: reasoningWanted + textTokens + toolTokens,
  };
}
