import type { Config } from "../config/schema.ts";
import type { RedisLink } from "../redis/create-redis-link.ts";
import { createFailOpenLimiter } from "./create-fail-open-limiter.ts";
import { createMemoryLimiter } from "./create-memory-limiter.ts";
import { createRedisLimiter } from "./create-redis-limiter.ts";
import type { Limiter, MonthlySpendLoader, MonthlyTokensLoader } from "./limiter.ts";

export interface GatewayLimiter extends Limiter {
  /** "redis" when REDIS_URL is set, else "memory". */
  readonly backend: "memory" | "redis";
  /** True while Redis is unreachable and limits are counted in-process (metrics gauge). */
  readonly degraded: boolean;
}

export interface CreateLimiterOptions {
  readonly config: Pick<Config, "redis">;
  /** The gateway's Redis link (REDIS_URL); without it, limits are in process only. */
  readonly redis?: RedisLink | undefined;
  /** The month's recorded usage (usage/load-monthly-tokens.ts). */
  readonly loadMonthlyTokens?: MonthlyTokensLoader | undefined;
  /** A key's recorded spend this month (usage/load-monthly-spend.ts). */
  readonly loadMonthlySpend?: MonthlySpendLoader | undefined;
  readonly log?: (line: string) => void;
}

/**
 * The gateway's limiter: in-process by default; with REDIS_URL, Redis shared by every instance,
 * falling back to in-process counts while Redis cannot be reached (never refusing because of it).
 */
export function createLimiter(options: CreateLimiterOptions): GatewayLimiter {
  const { config, redis: link } = options;
  const log = options.log ?? ((line: string) => console.warn(line));
  const memory = createMemoryLimiter({ loadMonthlyTokens: options.loadMonthlyTokens, loadMonthlySpend: options.loadMonthlySpend, log });
  if (!link) return Object.assign(memory, { backend: "memory" as const, degraded: false });
  const redis = createRedisLimiter({ send: link.send, keyPrefix: config.redis.keyPrefix, leaseTtlMs: config.redis.leaseTtlMs, loadMonthlyTokens: options.loadMonthlyTokens, loadMonthlySpend: options.loadMonthlySpend, log });
  const failOpen = createFailOpenLimiter({ primary: redis, fallback: memory, primaryUp: () => link.up });
  return {
    backend: "redis",
    get degraded() {
      return failOpen.degraded;
    },
    acquire: (subject) => failOpen.acquire(subject),
    addTokens: (accountId, tokens) => failOpen.addTokens(accountId, tokens),
    addSpend: (accountId, keyId, usd, unseen) => failOpen.addSpend(accountId, keyId, usd, unseen),
    close: () => failOpen.close(),
  };
}
