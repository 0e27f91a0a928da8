import { isJsonObject } from "../../canonical/json-object.ts";
import type { Usage } from "../../canonical/usage.ts";
import type { ResponsesUsage } from "./shapes.ts";

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

const field = (value: unknown, key: string): unknown => (isJsonObject(value) ? value[key] : undefined);

/** Responses usage from canonical usage; both count cached input inside `input_tokens` (the OpenAI meaning). */
export function encodeResponsesUsage(usage: Usage): ResponsesUsage {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** Canonical usage from a Responses `usage` object; missing or malformed counts read as 0. */
export function decodeResponsesUsage(raw: unknown): Usage {
  const inputDetails = field(raw, "input_tokens_details");
  const outputDetails = field(raw, "output_tokens_details");
  return {
    inputTokens: count(field(raw, "input_tokens")),
    outputTokens: count(field(raw, "output_tokens")),
    cacheReadTokens: count(field(inputDetails, "cached_tokens")),
    cacheWriteTokens: count(field(inputDetails, "cache_write_tokens")),
    reasoningTokens: count(field(outputDetails, "reasoning_tokens")),
  };
}
