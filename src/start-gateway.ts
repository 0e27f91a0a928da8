import type { Server } from "bun";
import type { AnyElysia } from "elysia";
import pkg from "../package.json" with { type: "json" };
import { createAccountStore } from "./accounts/account-store.ts";
import { createKeyAuthenticator } from "./accounts/create-key-authenticator.ts";
import { recordAudit } from "./accounts/record-audit.ts";
import { describeDbError } from "./db/sanitize-db-error.ts";
import { seedDemoAccount } from "./accounts/seed-demo-account.ts";
import { loadOpsSettings, type OpsSettings } from "./config/load-config.ts";
import type { Config, Fault } from "./config/schema.ts";
import { openDatabase, type Database } from "./db/client.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { createApp } from "./http/app.ts";
import { adminRoutes } from "./http/routes/admin.ts";
import { handoffRoutes } from "./http/routes/handoff.ts";
import { createSmartPlus } from "./smartplus/create-smart-plus.ts";
import { buildOpenApi } from "./ops/build-openapi.ts";
import { createReadinessCheck } from "./ops/check-readiness.ts";
import { createConfigHolder, type ConfigHolder } from "./ops/create-config-holder.ts";
import { createAdminGate } from "./ops/create-admin-gate.ts";
import { consoleRoutes, SESSION_LIFETIME_MS, sessionCookieOf } from "./console/console-routes.ts";
import { createSessionStore } from "./console/create-session-store.ts";
import { createMetrics, type GatewayMetrics } from "./ops/create-metrics.ts";
import { createRequestLog, type RequestLog } from "./ops/create-request-log.ts";
import { createShutdown, type DrainHook, type Shutdown } from "./ops/create-shutdown.ts";
import { ensurePortFree, listenOrExplain } from "./ops/ensure-port-free.ts";
import { opsRoutes } from "./ops/ops-routes.ts";
import { startTracing, type Tracing } from "./ops/start-tracing.ts";
import { notifyObservers } from "./ops/notify-observers.ts";
import { createInFlightTracker } from "./ops/track-in-flight.ts";
import type { RequestObserver } from "./canonical/request-record.ts";
import type { SimServer } from "./sim/start-sim.ts";
import { createPipelineServices } from "./create-pipeline-services.ts";
import { createAskClass } from "./pipeline/create-ask-class.ts";
import { findPinnedModel } from "./usage/find-pinned-model.ts";
import { needsInProcessSim, resolveProviders } from "./upstream/resolve-providers.ts";

export interface StartOptions {
  readonly env?: Record<string, string | undefined>;
  /** An already open (and migrated) database, as tests share one per file; otherwise opened from config. */
  readonly database?: Database;
  /** Record what the in-process simulated upstream receives (tests). */
  readonly recordSim?: boolean;
  /**
   * Create the demo account on an empty database. By default only for the offline demo: the
   * built-in simulated config (no config file) on the embedded database (no DATABASE_URL).
   */
  readonly seedDemo?: boolean;
  /** Logging, metrics token, shutdown deadline, traces; read from `env` when absent. */
  readonly ops?: Partial<OpsSettings>;
}

export interface RunningGateway {
  readonly url: string;
  readonly port: number;
  /** The config in use now (a reload replaces it). */
  readonly config: Config;
  readonly database: Database;
  readonly sim: SimServer | undefined;
  /** The demo account's key when this start created it (shown once). */
  readonly demoKey: string | undefined;
  /** True when the database held no account at start and none was made: start-up says how to create the first. */
  readonly noAccounts: boolean;
  readonly metrics: GatewayMetrics;
  readonly requestLog: RequestLog;
  readonly tracing: Tracing;
  /** Every finished request goes to each of these (request log, metrics; the usage writer adds itself). */
  readonly observers: RequestObserver[];
  /** True once shutdown has begun: `/readyz` answers 503. */
  readonly draining: boolean;
  /** Adds a step to the shutdown drain, run in order after in-flight work has ended. */
  addDrainHook(hook: DrainHook): void;
  /** Re-reads the config file and swaps it in; throws with the reason and keeps the old one when it is bad. */
  reload(): Config;
  /** Graceful: stop accepting, let in-flight requests and streams finish (up to the deadline), drain, close. */
  stop(): Promise<void>;
}

/** Faults configured per model, keyed by the id the simulated upstream sees. */
function simFaults(config: Config): Record<string, Fault> {
  const faults: Record<string, Fault> = {};
  for (const model of Object.values(config.models)) {
    if (model.faults && config.providers[model.provider]?.kind === "sim") faults[model.upstreamId] = model.faults;
  }
  return faults;
}

/**
 * Shutdown for a Bun server: without force, `stop` closes the listening socket and idle
 * connections at once and resolves once the requests under way (streams included) have sent
 * their last byte; past the deadline, a forced stop closes the rest.
 */
function createServerShutdown(server: () => Server<unknown> | null | undefined, deadlineMs: number, log: RequestLog): Shutdown {
  let finished: Promise<void> = Promise.resolve();
  return createShutdown({
    deadlineMs,
    stopAccepting: async () => {
      finished = server()?.stop(false) ?? Promise.resolve();
    },
    waitForIdle: (ms) => settlesWithin(finished, ms),
    forceClose: async () => void (await server()?.stop(true)),
    report: (message) => log.logger.warn(message),
  });
}

/** A reload with its outcome in the log; a rejected file keeps the running config. */
function reloadLogged(holder: ConfigHolder, log: RequestLog): Config {
  try {
    const next = holder.reload();
    log.logger.info({ tiers: Object.keys(next.tiers), models: Object.keys(next.models) }, "config reloaded");
    return next;
  } catch (error) {
    log.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, "config reload rejected; the old config stays");
    throw error;
  }
}

/** True when `work` settles within `ms`, false when the time runs out first. */
function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    work.then(settled, settled);
  });
}

/** Opens the database, migrates, seeds, starts the simulated upstream if needed, and listens. */
export async function startGateway(config: Config, options: StartOptions = {}): Promise<RunningGateway> {
  const env = options.env ?? process.env;
  const ops: OpsSettings = { ...loadOpsSettings(env), ...options.ops };
  ensurePortFree(config.host, config.port);
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  if (ownsDatabase) await migrateDatabase(database);
  const offlineDemo = config.configPath === undefined && config.databaseUrl === undefined;
  const seeded = (options.seedDemo ?? offlineDemo) ? await seedDemoAccount({ database, dataDir: config.dataDir }) : null;
  const noAccounts = seeded === null && (await createAccountStore(database).countAccounts()) === 0;
  // Loaded only for a config that uses it (the offline demo, tests): a gateway with real upstreams never needs its modules.
  const sim = needsInProcessSim(config)
    ? await (await import("./sim/start-sim.ts")).startSim({ port: 0, faults: simFaults(config), record: options.recordSim ?? false })
    : undefined;
  const authenticator = await createKeyAuthenticator({ database, ttlMs: config.keyCacheTtlMs });
  const requestLog = createRequestLog({ level: ops.logLevel, destination: ops.logDestination, logBodies: ops.logBodies });
  const services = createPipelineServices({
    config,
    database,
    askClass: createAskClass(() => holder.deps),
    onBreakerChange: (model, state) => metrics.breakerState(model, state === "half-open" ? "half_open" : state),
    onRedisChange: (change) =>
      change.state === "down"
        ? requestLog.logger.warn({ redis: "down", error: change.error, retryInMs: change.retryInMs }, "redis unreachable: limits, pins and the response cache run in process until a probe finds it")
        : requestLog.logger.info({ redis: "up", downForMs: change.downForMs }, "redis reachable again: limits, pins and the response cache are shared"),
  });
  const smartPlus = createSmartPlus({
    database,
    blobDir: config.smartPlus.blobDir,
    config: () => holder.current(),
    providers: () => holder.deps.providers,
    onError: (error) => requestLog.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, "smart+ worker loop failed; retrying"),
    // The job's model calls are billed to its account, and count toward the spend of the key that
    // started it, like any answered request.
    onModelCall: (job, call) =>
      services.usageObserverFor(holder.current())({
        // One row per model call, a re-run of the job after a lost lease included.
        requestId: `${job.id}-${call.attempt}-${crypto.randomUUID().slice(0, 8)}`,
        startedAt: Date.now(),
        endpoint: "smartplus_job",
        stream: false,
        accountId: job.accountId,
        ...(job.keyId !== null ? { keyId: job.keyId } : {}),
        tier: "smart-plus",
        model: call.model,
        effort: job.effort,
        source: "smartplus",
        status: 200,
        clientAborted: false,
        latencyMs: call.latencyMs,
        usage: call.usage,
        cacheHit: false,
        attempts: 1,
        warnings: [],
      }),
  });
  // Usage is priced by the config in use: a reload's new models have their prices at once.
  const observers: RequestObserver[] = [requestLog.observe, (record) => services.usageObserverFor(holder.current())(record)];
  // Label values are checked against the config in use, read at each observation.
  const metrics = createMetrics(() => holder.current());
  observers.push(metrics.observe);
  const holder = createConfigHolder({
    config,
    env,
    authenticator,
    simUrl: sim?.url,
    resolveProviders: (next) => resolveProviders(next, env, sim?.url),
    observe: notifyObservers(observers),
    metrics,
    logBody: requestLog.logBody,
    services,
    smartPlus,
  });
  metrics.setUsageBacklog(() => services.usageWriter.backlog);
  metrics.setParseMemoChars(() => services.parseMemo?.chars ?? 0);
  metrics.setDegraded(() => ({ limits: services.limiter.degraded, responseCacheL2: services.responseCache?.l2Degraded ?? false }));
  const tracing = await startTracing({ endpoint: ops.otlpEndpoint, serviceVersion: pkg.version });
  const inFlight = createInFlightTracker();
  observers.push(inFlight.observe);
  metrics.setInFlight(inFlight.counts);

  let app: AnyElysia | undefined;
  const shutdown = createServerShutdown(() => app?.server, ops.shutdownTimeoutMs, requestLog);
  const readiness = createReadinessCheck({ database, redis: services.redis, draining: () => shutdown.draining });

  const reload = (): Config => reloadLogged(holder, requestLog);
  const adminGate = config.adminToken ? createAdminGate({ token: config.adminToken, trustProxy: () => holder.current().trustProxy }) : undefined;
  const plugins: AnyElysia[] = [
    adminRoutes({ database, adminToken: config.adminToken, gate: adminGate, accounts: createAccountStore(database), routing: () => services.routingFor(holder.current()) }),
    handoffRoutes({ smartPlus }),
    opsRoutes({
      readiness,
      metrics,
      metricsToken: ops.metricsToken,
      adminGate,
      openApi: buildOpenApi(pkg.version),
      reload: async (by) => {
        const names = (c: Config) => ({ tiers: Object.keys(c.tiers), models: Object.keys(c.models) });
        const before = names(holder.current());
        const after = names(reload());
        try {
          await recordAudit(database.db, by, { action: "config.reload", before, after });
        } catch (error) {
          requestLog.logger.warn({ reason: describeDbError(error) }, "config reload done but not written to the audit log");
        }
        return after;
      },
    }),
  ];
  if (adminGate && config.adminToken) {
    const sessions = createSessionStore(database, config.adminToken, SESSION_LIFETIME_MS);
    adminGate.acceptSessions(async (request) => {
      const secret = sessionCookieOf(request);
      return secret === undefined ? null : sessions.find(secret);
    });
    plugins.push(consoleRoutes({ gate: adminGate, sessions, registry: metrics.registry, models: () => Object.keys(holder.current().models) }));
  }
  app = createApp(holder.deps, plugins, { inFlight, tracing }, { pinnedModel: findPinnedModel(services.pins) });
  // The body limit is the pipeline's (declared length checked before reading, streamed bodies
  // counted): Bun's own cap would answer 413 with an empty body, not in the caller's format.
  // reusePort off (Elysia's default is on): a second gateway on this port must fail, not share it.
  // Not Bun's development mode: the console's page is bundled once and minified, with no reload script.
  listenOrExplain(config.host, config.port, () =>
    app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: Number.MAX_SAFE_INTEGER, reusePort: false, development: false }),
  );
  const server = app.server!;
  const port = server.port!;
  inFlight.countRequestsWith(() => server.pendingRequests);

  smartPlus.startWorker();
  // Usage is written before anything closes: the drain hooks run first.
  shutdown.addDrainHook({ name: "usage", run: () => services.usageWriter.flush(10_000) });
  const closing: readonly DrainHook[] = [
    { name: "smart+ worker", run: () => smartPlus.close() },
    { name: "limits, routing and usage", run: () => services.close() },
    { name: "simulated upstream", run: async () => void (await sim?.stop()) },
    { name: "authenticator", run: () => authenticator.close() },
    { name: "traces", run: () => tracing.shutdown() },
    { name: "request log", run: () => requestLog.flush() },
    { name: "database", run: async () => void (ownsDatabase && (await database.close())) },
  ];
  for (const step of closing) shutdown.addCloseStep(step);
  return {
    url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`,
    port,
    get config() {
      return holder.current();
    },
    database,
    sim,
    demoKey: seeded?.key,
    noAccounts,
    metrics,
    requestLog,
    tracing,
    observers,
    get draining() {
      return shutdown.draining;
    },
    addDrainHook: (hook) => shutdown.addDrainHook(hook),
    reload,
    stop: () => shutdown.run(),
  };
}
