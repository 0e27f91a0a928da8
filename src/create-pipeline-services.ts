import { createResponseCache, type ResponseCache } from "./cache/create-response-cache.ts";
import { createResponseHistory, type ResponseHistory } from "./cache/create-response-history.ts";
import { createByteLru } from "./cache/create-byte-lru.ts";
import { createParseMemo, type ParseMemo } from "./pipeline/create-parse-memo.ts";
import { decodeRawAnswer } from "./pipeline/decode-raw-answer.ts";
import type { Config } from "./config/schema.ts";
import type { Database } from "./db/client.ts";
import { createLimiter, type GatewayLimiter } from "./limits/create-limiter.ts";
import { createRedisLink, type RedisLink, type RedisStateChange } from "./redis/create-redis-link.ts";
import type { AskClass } from "./routing/classify-with-llm.ts";
import { createMemoryPinStore } from "./routing/create-memory-pin-store.ts";
import { createPostgresDecisionStore } from "./routing/create-postgres-decision-store.ts";
import { createRedisPinStore } from "./routing/create-redis-pin-store.ts";
import { createRouting, type Routing } from "./routing/create-routing.ts";
import type { PinStore } from "./routing/pin-store.ts";
import { startDecisionCleanup, type DecisionCleanup } from "./routing/start-decision-cleanup.ts";
import type { BreakerState } from "./routing/circuit-breaker.ts";
import type { RequestObserver } from "./canonical/request-record.ts";
import { createUsageObserver } from "./usage/create-usage-observer.ts";
import { createUsageStore } from "./usage/create-usage-store.ts";
import { createUsageWriter, type UsageWriter } from "./usage/create-usage-writer.ts";
import { loadMonthlyTokens } from "./usage/load-monthly-tokens.ts";
import { loadMonthlySpend } from "./usage/load-monthly-spend.ts";

/**
 * How long, and in how much memory per instance, the conversations behind Responses answers made
 * from stateless upstreams are kept for a later `previous_response_id` (Redis, when configured,
 * keeps them as long for every instance).
 */
const RESPONSE_HISTORY_TTL_MS = 24 * 60 * 60 * 1000;
const RESPONSE_HISTORY_MAX_BYTES = 64 * 1024 * 1024;

/** The stateful parts the request pipeline leans on: limits, caches, routing and usage. */
export interface PipelineServices {
  /** The one link to Redis (REDIS_URL) every shared part uses, and its health. */
  readonly redis: RedisLink | undefined;
  readonly limiter: GatewayLimiter;
  readonly responseCache: ResponseCache | undefined;
  readonly responseHistory: ResponseHistory;
  /** Big request bodies' pieces parsed before, by account; none when server.parseMemoChars is 0. */
  readonly parseMemo: ParseMemo | undefined;
  readonly usageWriter: UsageWriter;
  /** Turns finished requests into usage rows and monthly token counts, priced by the config in use. */
  usageObserverFor(config: Config): RequestObserver;
  readonly pins: PinStore;
  /** The routing of a config: rebuilt when a reload brings a new config; pins are shared. */
  routingFor(config: Config): Routing;
  close(): Promise<void>;
}

export interface PipelineServicesOptions {
  readonly config: Config;
  readonly database: Database;
  readonly askClass?: AskClass;
  /** Circuit-breaker state changes (metrics). */
  readonly onBreakerChange?: (model: string, to: BreakerState) => void;
  /** Redis going down or coming back (one log line each). */
  readonly onRedisChange?: (change: RedisStateChange) => void;
}

/**
 * Builds the pipeline's services from the config. With REDIS_URL, limits, pins and the response
 * cache's second level live in Redis under `redis.keyPrefix` (shared by every instance); without
 * it, everything is in process.
 */
export function createPipelineServices(options: PipelineServicesOptions): PipelineServices {
  const { config, database } = options;
  const prefix = config.redis.keyPrefix;
  const redis = config.redisUrl ? createRedisLink({
        url: config.redisUrl,
        commandTimeoutMs: config.redis.commandTimeoutMs,
        backoffMs: config.redis.backoffMs,
        onChange: options.onRedisChange,
      }) : undefined;
  const limiter = createLimiter({ config, redis, loadMonthlyTokens: loadMonthlyTokens(database), loadMonthlySpend: loadMonthlySpend(database) });
  const cacheSettings = config.responseCache;
  const responseCache = cacheSettings.enabled
    ? createResponseCache({
        ttlMs: cacheSettings.ttlMs,
        decodeRaw: decodeRawAnswer,
        lru: createByteLru({ maxBytes: cacheSettings.maxBytes, ttlMs: cacheSettings.ttlMs, shards: cacheSettings.shards }),
        redis: redis ? { link: redis, keyPrefix: prefix } : undefined,
      })
    : undefined;
  const responseHistory = createResponseHistory({
    ttlMs: RESPONSE_HISTORY_TTL_MS,
    lru: createByteLru({ maxBytes: RESPONSE_HISTORY_MAX_BYTES, ttlMs: RESPONSE_HISTORY_TTL_MS }),
    redis: redis ? { link: redis, keyPrefix: prefix } : undefined,
  });
  const usageWriter = createUsageWriter({ store: createUsageStore(database), ...config.usage });
  const pins = redis
    ? createRedisPinStore({ link: redis, prefix: `${prefix}pin:` })
    : createMemoryPinStore(config.routing.conversations.maxPins, Date.now);
  let routing: Routing | undefined;
  // Expired routing decisions are deleted by the services, not by a routing: the table outlives
  // both a reload and the process, so a gateway on the rules still deletes what an earlier run on
  // the `llm` classifier left, and a reload's interval takes over from the one before.
  const decisionStore = createPostgresDecisionStore(database);
  let cleanup: DecisionCleanup = startDecisionCleanup(decisionStore, config.routing.decisionCache.cleanupIntervalMs);
  const routingFor = (next: Config): Routing => {
    if (routing?.config !== next) {
      const { cleanupIntervalMs } = next.routing.decisionCache;
      if (cleanup.intervalMs !== cleanupIntervalMs) {
        void cleanup.stop();
        cleanup = startDecisionCleanup(decisionStore, cleanupIntervalMs);
      }
      // A reloaded config gets its own rules and pools; conversations keep their pins.
      const onChange = options.onBreakerChange;
      routing = createRouting({
        config: next,
        database,
        pins,
        ...(options.askClass ? { askClass: options.askClass } : {}),
        ...(onChange ? { onBreakerChange: (model: string, _from: BreakerState, to: BreakerState) => onChange(model, to) } : {}),
      });
    }
    return routing;
  };
  let observed: { readonly config: Config; readonly observe: RequestObserver } | undefined;
  return {
    redis,
    limiter,
    responseCache,
    responseHistory,
    parseMemo: config.parseMemoChars > 0 ? createParseMemo({ maxChars: config.parseMemoChars }) : undefined,
    usageWriter,
    usageObserverFor: (next) => {
      if (observed?.config !== next) observed = { config: next, observe: createUsageObserver({ writer: usageWriter, models: next.models, limiter }) };
      return observed.observe;
    },
    pins,
    routingFor,
    async close() {
      await cleanup.stop();
      await usageWriter.close(10_000);
      await routing?.close();
      await limiter.close();
      redis?.close();
    },
  };
}
