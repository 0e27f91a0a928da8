import { ZERO_USAGE, type Usage } from "../../canonical/usage.ts";
import { isJsonObject } from "../../canonical/json-object.ts";
import type { ChatUsage } from "./shapes.ts";

/**
 * Canonical usage → Chat usage. Both count cached input inside the prompt total and reasoning
 * inside the completion total, so the numbers carry over as they are.
 */
export function encodeChatUsage(usage: Usage): ChatUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/** A Chat `usage` object (any subset of its fields, as compatible providers send) → canonical usage. */
export function decodeChatUsage(raw: unknown): Usage {
  if (!isJsonObject(raw)) return ZERO_USAGE;
  const prompt = isJsonObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completion = isJsonObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  return {
    inputTokens: count(raw.prompt_tokens),
    outputTokens: count(raw.completion_tokens),
    cacheReadTokens: count(prompt.cached_tokens),
    cacheWriteTokens: count(prompt.cache_write_tokens),
    reasoningTokens: count(completion.reasoning_tokens),
  };
}
