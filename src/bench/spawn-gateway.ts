import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Child, ChildGroup } from "./child-group.ts";
import { findFreePort } from "./find-free-port.ts";
import { jitDumpEnvironment } from "./record-perf.ts";
import { loadConfig } from "../config/load-config.ts";
import { tunedEnvironment } from "../ops/size-process.ts";

export const BENCH_HOST = "127.0.0.1";

export interface GatewayProcess {
  readonly child: Child;
  readonly url: string;
  readonly adminToken: string;
  /** ROUTELANE_DATA_DIR: PGlite keeps its files in `<dataDir>/pglite`. */
  readonly dataDir: string;
}

export interface SpawnGatewayOptions {
  readonly name: string;
  /** The checkout whose `src/main.ts` runs. */
  readonly root: string;
  readonly configPath: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  readonly cpuProfDir: string | undefined;
  /** Where JSC writes its jitdump (for `--perf`), if anywhere. */
  readonly jitDumpDir?: string | undefined;
  /** Added to the environment (the bench's `--baseline-env`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Sees the gateway's stderr first (see ChildGroup.spawn). */
  readonly stderr?: ((chunk: Uint8Array) => Uint8Array) | undefined;
}

/** The environment without what would change which database or Redis the gateway uses. */
function gatewayEnv(extra: Record<string, string>, options: SpawnGatewayOptions): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...extra };
  // An inherited DATABASE_URL or REDIS_URL would silently bench against some other service: PGlite and no Redis unless asked.
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  if (options.redisUrl) env.REDIS_URL = options.redisUrl;
  return env;
}

/** One gateway from a checkout's `src/main.ts` (`bun run`, as from source), with its own port, data dir and admin token. */
export function spawnGateway(group: ChildGroup, options: SpawnGatewayOptions): GatewayProcess {
  const port = findFreePort(BENCH_HOST);
  const adminToken = randomBytes(24).toString("hex");
  const child = group.spawn(
    options.name,
    [
      process.execPath,
      ...(options.cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfDir}`] : []),
      "run",
      join(options.root, "src/main.ts"),
    ],
    gatewayEnv(
      {
        // Under the profiler the gateway does not restart itself with its tuning (see sizeProcess):
        // it starts with it, so the profile is of the gateway as it runs.
        ...(options.cpuProfDir ? tunedEnvironment(loadConfig({ ROUTELANE_CONFIG: options.configPath }).maxUpstreamRequests, { ...process.env, ...options.env }) : {}),
        ...(options.jitDumpDir ? jitDumpEnvironment(options.jitDumpDir) : {}),
        ...options.env,
        PORT: String(port),
        HOST: BENCH_HOST,
        ROUTELANE_CONFIG: options.configPath,
        ROUTELANE_DATA_DIR: options.dataDir,
        ROUTELANE_ADMIN_TOKEN: adminToken,
      },
      options,
    ),
    { server: true, stderr: options.stderr },
  );
  return { child, url: `http://${BENCH_HOST}:${port}`, adminToken, dataDir: options.dataDir };
}
