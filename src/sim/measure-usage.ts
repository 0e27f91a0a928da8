import { estimateTokens } from "./estimate-tokens.ts";
import type { SimUsageInput } from "./types.ts";

/**
 * Input usage, stateless: everything before the newest message counts as a warm prompt-cache
 * prefix once the conversation has more than one (non-system) message. The total is the prefix
 * and the last message each rounded up, so count endpoints and usage always agree.
 */
export function measureUsage(prefixChars: number, lastChars: number, conversationLength: number, lastCached: boolean): SimUsageInput {
  const prefix = estimateTokens(prefixChars);
  const last = estimateTokens(lastChars);
  return { total: prefix + last, cacheRead: conversationLength > 1 ? prefix : 0, cacheWrite: lastCached ? last : 0 };
}
