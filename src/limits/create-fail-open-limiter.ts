import type { LimitDecision, Limiter, LimitSubject } from "./limiter.ts";
import { RedisUnavailableError } from "./run-redis-script.ts";

export interface FailOpenLimiterOptions {
  /** The shared (Redis) backend; rejects with RedisUnavailableError when it cannot be reached. */
  readonly primary: Limiter;
  /** The in-process backend used while the primary is unreachable. */
  readonly fallback: Limiter;
  /** How long to stay on the fallback before trying the primary again. */
  readonly retryAfterMs?: number;
  readonly now?: () => number;
  readonly log?: (line: string) => void;
}

export interface FailOpenLimiter extends Limiter {
  /** True while requests are limited in-process only (for the metrics gauge). */
  readonly degraded: boolean;
}

/**
 * Limits fail open: when Redis is unreachable every instance keeps serving on its own in-process
 * counts (looser across instances, never a refusal caused by the outage), says so once in the log,
 * and goes back to Redis when it answers again. Authentication never goes through here.
 */
export function createFailOpenLimiter(options: FailOpenLimiterOptions): FailOpenLimiter {
  const { primary, fallback } = options;
  const retryAfterMs = options.retryAfterMs ?? 5_000;
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => console.warn(line));
  let degraded = false;
  let retryAt = 0;

  function degrade(err: unknown): void {
    retryAt = now() + retryAfterMs;
    if (degraded) return;
    degraded = true;
    log(JSON.stringify({ level: "warn", msg: "redis unreachable: limits are enforced in-process until it answers again", error: err instanceof Error ? err.message : String(err) }));
  }

  async function viaPrimary(subject: LimitSubject): Promise<LimitDecision> {
    try {
      const decision = await primary.acquire(subject);
      if (degraded) {
        degraded = false;
        log(JSON.stringify({ level: "info", msg: "redis reachable again: limits are shared across instances" }));
      }
      return decision;
    } catch (err) {
      if (!(err instanceof RedisUnavailableError)) throw err;
      degrade(err);
      return fallback.acquire(subject);
    }
  }

  return {
    get degraded() {
      return degraded;
    },
    acquire(subject) {
      if (degraded && now() < retryAt) return fallback.acquire(subject);
      return viaPrimary(subject);
    },
    addTokens(accountId, tokens) {
      // The fallback's month counter stays current so an outage does not reopen a reached cap.
      fallback.addTokens(accountId, tokens);
      primary.addTokens(accountId, tokens);
    },
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
