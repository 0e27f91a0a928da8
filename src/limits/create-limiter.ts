import { RedisClient } from "bun";
import type { Config } from "../config/schema.ts";
import { createFailOpenLimiter } from "./create-fail-open-limiter.ts";
import { createMemoryLimiter } from "./create-memory-limiter.ts";
import { createRedisLimiter } from "./create-redis-limiter.ts";
import type { Limiter, MonthlyTokensLoader } from "./limiter.ts";

/** A request waits at most this long for a (re)connection before it is limited in-process. */
const CONNECT_TIMEOUT_MS = 1_000;

export interface GatewayLimiter extends Limiter {
  /** "redis" when REDIS_URL is set, else "memory". */
  readonly backend: "memory" | "redis";
  /** True while Redis is unreachable and limits are counted in-process (metrics gauge). */
  readonly degraded: boolean;
}

export interface CreateLimiterOptions {
  readonly config: Pick<Config, "redisUrl" | "redis">;
  /** The month's recorded usage (usage/load-monthly-tokens.ts). */
  readonly loadMonthlyTokens?: MonthlyTokensLoader | undefined;
  /** A client to share; by default one is opened on `config.redisUrl`. */
  readonly redisClient?: RedisClient | undefined;
  readonly log?: (line: string) => void;
}

/**
 * The gateway's limiter: in-process by default; with REDIS_URL, Redis shared by every instance,
 * falling back to in-process counts while Redis cannot be reached (never refusing because of it).
 */
export function createLimiter(options: CreateLimiterOptions): GatewayLimiter {
  const { config } = options;
  const log = options.log ?? ((line: string) => console.warn(line));
  const memory = createMemoryLimiter({ loadMonthlyTokens: options.loadMonthlyTokens, log });
  if (!config.redisUrl && !options.redisClient) {
    return Object.assign(memory, { backend: "memory" as const, degraded: false });
  }
  const ownClient = !options.redisClient;
  // No offline queue: while disconnected a command fails at once and the request is limited in-process.
  const client = options.redisClient ?? new RedisClient(config.redisUrl, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: CONNECT_TIMEOUT_MS });
  let connecting: Promise<void> | null = null;
  // We reconnect ourselves (Bun's own retries would hold requests): each retry of the fail-open wrapper connects once.
  const connect = () =>
    (connecting ??= Promise.race([client.connect().catch(() => {}), Bun.sleep(CONNECT_TIMEOUT_MS)]).finally(() => (connecting = null)));
  if (ownClient) void connect();
  const redis = createRedisLimiter({ client, keyPrefix: config.redis.keyPrefix, leaseTtlMs: config.redis.leaseTtlMs, loadMonthlyTokens: options.loadMonthlyTokens, log });
  const primary: Limiter = {
    async acquire(subject) {
      if (!client.connected) await connect();
      return redis.acquire(subject);
    },
    addTokens: (accountId, tokens) => redis.addTokens(accountId, tokens),
    close: () => redis.close(),
  };
  const failOpen = createFailOpenLimiter({ primary, fallback: memory, log });
  return {
    backend: "redis",
    get degraded() {
      return failOpen.degraded;
    },
    acquire: (subject) => failOpen.acquire(subject),
    addTokens: (accountId, tokens) => failOpen.addTokens(accountId, tokens),
    async close() {
      await failOpen.close();
      if (ownClient) client.close();
    },
  };
}
