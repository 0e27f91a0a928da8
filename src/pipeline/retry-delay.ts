import type { RetryPolicy } from "../config/schema.ts";

/**
 * The wait before retry number `retry` (0 = the first) of a model, ms: the wait the upstream asked
 * for when it named one, otherwise an exponential back-off from `baseDelayMs`, capped at
 * `maxDelayMs`, with equal jitter (half fixed, half random) so that callers failing together do
 * not come back together.
 */
export function retryDelay(policy: RetryPolicy, retry: number, asked: number | undefined, random: () => number = Math.random): number {
  if (asked !== undefined) return asked;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
