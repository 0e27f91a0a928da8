import { loadConfig } from "../config/load-config.ts";
import type { Config } from "../config/schema.ts";
import type { ParseMemo } from "../pipeline/create-parse-memo.ts";
import type { GatewayDeps } from "../pipeline/gateway-deps.ts";
import type { RequestObserver } from "../canonical/request-record.ts";
import type { GatewayMetrics } from "./create-metrics.ts";
import type { KeyAuthenticator } from "../accounts/principal.ts";
import type { ResponseCache } from "../cache/create-response-cache.ts";
import type { Routing } from "../routing/create-routing.ts";
import { needsInProcessSim, type ResolvedProvider } from "../upstream/resolve-providers.ts";

type Env = Record<string, string | undefined>;
type Providers = Readonly<Record<string, ResolvedProvider>>;

interface Generation {
  readonly config: Config;
  /** This generation's providers, with the previous generation's under them. */
  readonly providers: Providers;
  readonly own: Providers;
}

export interface ConfigHolder {
  /** The deps the pipeline gets: `config` and `providers` always read the current generation. */
  readonly deps: GatewayDeps & OpsDeps;
  current(): Config;
  /** Re-reads the config file; throws a ConfigError with the reason and keeps the old config on any problem. */
  reload(): Config;
}

export interface ConfigHolderOptions {
  readonly config: Config;
  readonly env: Env;
  readonly authenticator: KeyAuthenticator;
  readonly simUrl: string | undefined;
  /** The providers of a config, resolved by the composition root (keys from the environment, the in-process sim's address). */
  readonly resolveProviders: (config: Config) => Providers;
  /** Every finished request, for the pipeline to call (see OpsDeps). */
  readonly observe: RequestObserver;
  readonly metrics: GatewayMetrics;
  readonly logBody: (requestId: string, body: unknown) => void;
  /** Limits, caches and routing; the routing follows the config in use. */
  readonly services: Pick<GatewayDeps, "limiter" | "responseHistory"> & {
    readonly responseCache: ResponseCache | undefined;
    readonly parseMemo: ParseMemo | undefined;
    routingFor(config: Config): Routing;
  };
  /** The Smart+ job flow for `smart-plus` turns. */
  readonly smartPlus?: GatewayDeps["smartPlus"];
}

/**
 * What the deps object carries beyond GatewayDeps, for the pipeline to use once GatewayDeps
 * declares it (`observe` already is).
 */
export interface OpsDeps {
  readonly observe: RequestObserver;
  /** Hooks for what only the pipeline sees: upstream attempts, failovers, breaker, caches, limits. */
  readonly metrics: GatewayMetrics;
  /** Debug body logging (a no-op unless ROUTELANE_LOG_BODIES and level debug). */
  readonly logBody: (requestId: string, body: unknown) => void;
}

/** What a reload may not change: where the process listens and which stores it has open. */
function keepProcessSettings(next: Config, running: Config): Config {
  return Object.freeze({
    ...next,
    port: running.port,
    host: running.host,
    databaseUrl: running.databaseUrl,
    dataDir: running.dataDir,
    redisUrl: running.redisUrl,
    adminToken: running.adminToken,
    configPath: running.configPath,
  });
}

/**
 * The config and resolved providers behind one mutable reference. A reload validates the whole
 * file and resolves every provider before a single assignment swaps them, so a request sees
 * either the old generation or the new one. Providers of the previous generation stay resolvable
 * for one more generation: a request that read the old config and then looks up its provider
 * still finds it.
 */
export function createConfigHolder(options: ConfigHolderOptions): ConfigHolder {
  const resolve = options.resolveProviders;
  const first = Object.freeze(resolve(options.config));
  let generation: Generation = { config: options.config, providers: first, own: first };
  const services = options.services;
  const deps: GatewayDeps & OpsDeps = {
    authenticator: options.authenticator,
    observe: options.observe,
    metrics: options.metrics,
    logBody: options.logBody,
    limiter: services.limiter,
    ...(services.responseCache ? { responseCache: services.responseCache } : {}),
    responseHistory: services.responseHistory,
    ...(services.parseMemo ? { parseMemo: services.parseMemo } : {}),
    ...(options.smartPlus ? { smartPlus: options.smartPlus } : {}),
    get config() {
      return generation.config;
    },
    get providers() {
      return generation.providers;
    },
    // The routing is compiled from the config: a reload swaps it with the config it was built from.
    get routing() {
      return services.routingFor(generation.config);
    },
  };
  return {
    deps,
    current: () => generation.config,
    reload() {
      const next = keepProcessSettings(loadConfig(options.env), generation.config);
      if (needsInProcessSim(next) && options.simUrl === undefined) {
        throw new Error("a sim provider without baseUrl needs the in-process simulated upstream, which only starts with the process: restart instead");
      }
      const own = Object.freeze(resolve(next));
      generation = { config: next, own, providers: Object.freeze({ ...generation.own, ...own }) };
      return next;
    },
  };
}
