import type { Usage } from "../canonical/usage.ts";
import type { ModelConfig } from "../config/schema.ts";

const PER_MILLION = 1_000_000;

/**
 * The cost of one answer in USD from the model's prices (USD per million tokens). Cached reads and
 * cache writes are priced at their own rates; `inputTokens` includes both, so they are taken out of
 * the full-price input first.
 */
export function computeCost(usage: Usage, prices: ModelConfig["prices"]): number {
  const freshInput = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const micro =
    freshInput * prices.input + usage.cacheReadTokens * prices.cacheRead + usage.cacheWriteTokens * prices.cacheWrite + usage.outputTokens * prices.output;
  return micro / PER_MILLION;
}
