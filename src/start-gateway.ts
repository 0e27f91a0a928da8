import type { AnyElysia } from "elysia";
import { createAccountStore } from "./accounts/account-store.ts";
import { createKeyAuthenticator } from "./accounts/create-key-authenticator.ts";
import { seedDemoAccount } from "./accounts/seed-demo-account.ts";
import type { Config } from "./config/schema.ts";
import { openDatabase, type Database } from "./db/client.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { createApp } from "./http/app.ts";
import { adminRoutes } from "./http/routes/admin.ts";
import { startSim, type SimServer } from "./sim/start-sim.ts";
import type { Fault } from "./config/schema.ts";
import { needsInProcessSim, resolveProviders } from "./upstream/resolve-providers.ts";

export interface StartOptions {
  readonly env?: Record<string, string | undefined>;
  /** An already open (and migrated) database, as tests share one per file; otherwise opened from config. */
  readonly database?: Database;
  /** Record what the in-process simulated upstream receives (tests). */
  readonly recordSim?: boolean;
  /** Create the demo account on an empty database (default true). */
  readonly seedDemo?: boolean;
}

export interface RunningGateway {
  readonly url: string;
  readonly port: number;
  readonly config: Config;
  readonly database: Database;
  readonly sim: SimServer | undefined;
  /** The demo account's key when this start created it (shown once). */
  readonly demoKey: string | undefined;
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

/** Opens the database, migrates, seeds, starts the simulated upstream if needed, and listens. */
export async function startGateway(config: Config, options: StartOptions = {}): Promise<RunningGateway> {
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  if (ownsDatabase) await migrateDatabase(database);
  const seeded = options.seedDemo === false ? null : await seedDemoAccount({ database, dataDir: config.dataDir });
  const sim = needsInProcessSim(config) ? await startSim({ port: 0, faults: simFaults(config), record: options.recordSim ?? false }) : undefined;
  const authenticator = await createKeyAuthenticator({ database, ttlMs: config.keyCacheTtlMs });
  const plugins: AnyElysia[] = [adminRoutes({ database, adminToken: config.adminToken, accounts: createAccountStore(database) })];
  const app = createApp({ config, authenticator, providers: resolveProviders(config, options.env ?? process.env, sim?.url) }, plugins);
  // The body limit is the pipeline's (declared length checked before reading, streamed bodies
  // counted): Bun's own cap would answer 413 with an empty body, not in the caller's format.
  app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: Number.MAX_SAFE_INTEGER });
  const port = app.server!.port!;
  return {
    url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`,
    port,
    config,
    database,
    sim,
    demoKey: seeded?.key,
    async stop() {
      await app.stop();
      await sim?.stop();
      await authenticator.close();
      if (ownsDatabase) await database.close();
    },
  };
}
