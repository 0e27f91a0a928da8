import { RedisUnavailableError } from "../redis/create-redis-link.ts";
import type { LimitDecision, Limiter, LimitSubject } from "./limiter.ts";

export interface FailOpenLimiterOptions {
  /** The shared (Redis) backend; rejects with RedisUnavailableError when it cannot be reached. */
  readonly primary: Limiter;
  /** The in-process backend used while the primary is unreachable. */
  readonly fallback: Limiter;
  /** False while the primary's store is known to be down (the Redis link's backoff): it is not even asked. */
  readonly primaryUp: () => boolean;
}

export interface FailOpenLimiter extends Limiter {
  /** True while requests are limited in-process only (for the metrics gauge). */
  readonly degraded: boolean;
}

/**
 * Limits fail open: while Redis is down every instance keeps serving on its own in-process counts
 * (looser across instances, never a refusal caused by the outage), and goes back to Redis when the
 * link's probe finds it again. During the outage a request costs no Redis call at all: the memory
 * backend answers at once. The state changes are logged by the link, once each. Authentication
 * never goes through here.
 */
export function createFailOpenLimiter(options: FailOpenLimiterOptions): FailOpenLimiter {
  const { primary, fallback, primaryUp } = options;

  async function viaPrimary(subject: LimitSubject): Promise<LimitDecision> {
    try {
      return await primary.acquire(subject);
    } catch (err) {
      if (!(err instanceof RedisUnavailableError)) throw err;
      return fallback.acquire(subject);
    }
  }

  return {
    get degraded() {
      return !primaryUp();
    },
    acquire(subject) {
      if (!primaryUp()) return fallback.acquire(subject);
      return viaPrimary(subject);
    },
    addTokens(accountId, tokens) {
      // The fallback's month counter stays current so an outage does not reopen a reached cap.
      fallback.addTokens(accountId, tokens);
      if (primaryUp()) primary.addTokens(accountId, tokens);
    },
    addSpend(accountId, keyId, usd, unseen) {
      fallback.addSpend(accountId, keyId, usd, unseen);
      primary.addSpend(accountId, keyId, usd, unseen);
    },
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
