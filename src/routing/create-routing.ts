import type { Config } from "../config/schema.ts";
import type { Database } from "../db/client.ts";
import { createCircuitBreaker, type BreakerOptions, type CircuitBreaker } from "./circuit-breaker.ts";
import type { AskClass } from "./classify-with-llm.ts";
import { compileRoutingRules, type CompiledRule } from "./compile-routing-rules.ts";
import { createDecisionCache, type DecisionCache } from "./create-decision-cache.ts";
import { createPostgresDecisionStore } from "./create-postgres-decision-store.ts";
import { hashKey } from "./hash-key.ts";
import type { PinStore } from "./pin-store.ts";
import { compileEscalation, type CompiledEscalation } from "./track-escalation.ts";

/** Everything `decideRoute` reads: compiled once at start-up, shared by every request. */
export interface Routing {
  readonly config: Config;
  readonly rules: readonly CompiledRule[];
  readonly escalation: CompiledEscalation;
  readonly decisionCache: DecisionCache;
  readonly pins: PinStore;
  readonly breaker: CircuitBreaker;
  /** The `llm` classifier's port; without it the rules classify. */
  readonly askClass: AskClass | undefined;
  /** Changes whenever the rules or the pools change, so cached decisions of an older config are not reused. */
  readonly configFingerprint: string;
  close(): Promise<void>;
}

export interface CreateRoutingOptions {
  readonly config: Config;
  /** The decision cache's shared layer, used with the `llm` classifier; without it (or with the rules) the cache is memory only. */
  readonly database?: Database | undefined;
  /**
   * The conversation pins, built once by the composition root (in Redis under the configured key
   * prefix, or in process) and shared by the routings of every config generation.
   */
  readonly pins: PinStore;
  readonly askClass?: AskClass | undefined;
  readonly now?: () => number;
  /** Told of every circuit-breaker state change (metrics). */
  readonly onBreakerChange?: BreakerOptions["onChange"];
}

export function createRouting(options: CreateRoutingOptions): Routing {
  const { config } = options;
  const routing = config.routing;
  const now = options.now ?? Date.now;
  // The table is shared by the instances and outlives the process, which pays when a decision costs
  // a model call (the `llm` classifier). The rules take microseconds and decide the same text the
  // same way in every process: for them a lookup in the table (a database round trip, before the
  // request could go on) cost a new task's first request 0.7 ms at p50 on Postgres and on PGlite.
  const store = options.database && routing.classifier.kind === "llm" ? createPostgresDecisionStore(options.database) : undefined;
  const decisionCache = createDecisionCache({ ttlMs: routing.decisionCache.ttlMs, lruSize: routing.decisionCache.lruSize, store, now });
  const { pins } = options;
  const pools = Object.fromEntries(Object.entries(config.tiers).map(([tier, t]) => [tier, [t.models, t.defaultEffort]]));
  return {
    config,
    rules: compileRoutingRules(routing),
    escalation: compileEscalation(routing.escalation),
    decisionCache,
    pins,
    breaker: createCircuitBreaker({
      failureThreshold: routing.breaker.failureThreshold,
      coolDownMs: routing.breaker.coolDownMs,
      now,
      ...(options.onBreakerChange ? { onChange: options.onBreakerChange } : {}),
    }),
    askClass: options.askClass,
    configFingerprint: hashKey([JSON.stringify([routing.rules, routing.classes, routing.maxEffort, pools])]).slice(0, 12),
    async close() {
      await decisionCache.flush();
      await pins.close();
    },
  };
}
