import type { KeyAuthenticator } from "../accounts/principal.ts";
import type { ResponseCache } from "../cache/create-response-cache.ts";
import type { ResponseHistory } from "../cache/create-response-history.ts";
import type { Limiter } from "../limits/limiter.ts";
import type { Routing } from "../routing/create-routing.ts";
import type { Config } from "../config/schema.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import type { RequestObserver } from "../canonical/request-record.ts";
import type { TurnInput } from "../smartplus/handle-turn.ts";
import type { ParseMemo } from "./create-parse-memo.ts";

/** What the request pipeline needs from the running process. */
export interface GatewayDeps {
  readonly config: Config;
  readonly authenticator: KeyAuthenticator;
  readonly providers: Readonly<Record<string, ResolvedProvider>>;
  /** Told of every finished request (request log, metrics, usage); absent = nobody listens. */
  readonly observe?: RequestObserver;
  /** Plan limits. */
  readonly limiter: Limiter;
  /** The 10-minute response cache; absent or disabled = none. */
  readonly responseCache?: ResponseCache;
  /** The conversations behind Responses answers made from stateless upstreams; absent = `previous_response_id` is dropped there. */
  readonly responseHistory?: ResponseHistory;
  /** Big request bodies' pieces parsed before, by account; absent = every body is parsed whole. */
  readonly parseMemo?: ParseMemo;
  /** Classification, decision cache, conversations, breaker (compiled from the config in use). */
  readonly routing: Routing;
  /** Counters only the pipeline sees; absent = not counted. */
  readonly metrics?: PipelineMetrics;
  /** Debug body logging (a no-op unless the operator asked for it; keys redacted). */
  readonly logBody?: (requestId: string, body: unknown) => void;
  /** The Smart+ job flow that answers `smart-plus` turns; absent = the tier is routed like the others. */
  readonly smartPlus?: { turn(input: TurnInput): Promise<Response> };
}

/** What the pipeline reports to metrics beyond its request records (labels are config names). */
export interface PipelineMetrics {
  upstreamAttempt(model: string, outcome: "ok" | "error"): void;
  failover(model: string): void;
  cacheLookup(cache: "response" | "decision", hit: boolean): void;
  limitRefused(kind: string): void;
}
