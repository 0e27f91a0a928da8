import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Child, ChildGroup } from "./child-group.ts";
import { createBenchAccount } from "./create-bench-account.ts";
import { findFreePort } from "./find-free-port.ts";
import type { BenchTarget, TargetEndpoints } from "./scenarios.ts";
import { waitUntilReady } from "./wait-until-ready.ts";
import { writeGatewayConfig } from "./write-gateway-config.ts";

const HOST = "127.0.0.1";
const ROOT = join(import.meta.dir, "..", "..");

export interface BenchProcesses {
  readonly endpoints: TargetEndpoints;
  /** The process that serves each target, for CPU accounting; `baseline` only when its gateway runs. */
  readonly pids: Readonly<Record<Exclude<BenchTarget, "baseline">, number>> & { readonly baseline?: number | undefined };
}

/** The environment without what would change which database or upstream the gateway uses. */
function gatewayEnv(extra: Record<string, string>, databaseUrl: string | undefined): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...extra };
  // An inherited DATABASE_URL would silently bench against some other Postgres; PGlite unless asked.
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return env;
}

interface GatewayProcess {
  readonly child: Child;
  readonly url: string;
  readonly adminToken: string;
}

/** One gateway from a checkout's `src/main.ts`, with its own port, data dir and admin token. */
function spawnGateway(
  group: ChildGroup,
  options: { name: string; root: string; configPath: string; dataDir: string; databaseUrl: string | undefined; cpuProfDir: string | undefined },
): GatewayProcess {
  const port = findFreePort(HOST);
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
        PORT: String(port),
        HOST,
        ROUTELANE_CONFIG: options.configPath,
        ROUTELANE_DATA_DIR: options.dataDir,
        ROUTELANE_ADMIN_TOKEN: adminToken,
      },
      options.databaseUrl,
    ),
    { server: true },
  );
  return { child, url: `http://${HOST}:${port}`, adminToken };
}

/**
 * Starts the simulated upstream, the bare proxy and the gateway, each in its own process so none
 * shares an event loop with another or with the load generator, then makes a gateway API key.
 * With `baselineDir`, a second gateway from that checkout joins them, on the same config and sim
 * but with its own PGlite data and account. `dir` (the caller's temp dir, removed by the caller)
 * receives the config and the PGlite data.
 */
export async function startProcesses(
  group: ChildGroup,
  options: { dir: string; databaseUrl?: string | undefined; cpuProfDir?: string | undefined; baselineDir?: string | undefined },
): Promise<BenchProcesses> {
  const { dir } = options;
  // parseBenchArgs refuses this pair too; here it guards callers that skip it, since sharing a database skews both gateways.
  if (options.baselineDir !== undefined && options.databaseUrl !== undefined)
    throw new Error("startProcesses: a baseline gateway cannot share --database-url with the gateway");
  const simPort = findFreePort(HOST);
  // The sim reads per-model faults from ROUTELANE_CONFIG; a caller's config must not inject faults here.
  const simEnv: Record<string, string | undefined> = { ...process.env, SIM_PORT: String(simPort), SIM_HOST: HOST };
  delete simEnv.ROUTELANE_CONFIG;
  const sim = group.spawn("sim", [process.execPath, "run", join(ROOT, "src/sim/main.ts")], simEnv, { server: true });
  const simUrl = `http://${HOST}:${simPort}`;

  const barePort = findFreePort(HOST);
  const bare = group.spawn(
    "bare proxy",
    [process.execPath, "run", join(ROOT, "src/bench/bare-proxy.ts")],
    {
      ...process.env,
      BARE_PORT: String(barePort),
      BARE_HOST: HOST,
      BARE_UPSTREAM: simUrl,
    },
    { server: true },
  );

  const configPath = writeGatewayConfig(dir, simUrl);
  const gateway = spawnGateway(group, {
    name: "gateway",
    root: ROOT,
    configPath,
    dataDir: join(dir, "data"),
    databaseUrl: options.databaseUrl,
    cpuProfDir: options.cpuProfDir,
  });
  // Not profiled: --cpu-prof is for the code under change, and a second profile in the same dir would be mistaken for it.
  const baseline =
    options.baselineDir === undefined
      ? undefined
      : spawnGateway(group, {
          name: "baseline gateway",
          root: options.baselineDir,
          configPath,
          dataDir: join(dir, "baseline-data"),
          databaseUrl: undefined,
          cpuProfDir: undefined,
        });

  await Promise.all([
    waitUntilReady(sim, { kind: "port", hostname: HOST, port: simPort }),
    waitUntilReady(bare, { kind: "port", hostname: HOST, port: barePort }),
    waitUntilReady(gateway.child, { kind: "http", url: `${gateway.url}/` }),
    ...(baseline ? [waitUntilReady(baseline.child, { kind: "http", url: `${baseline.url}/` })] : []),
  ]);
  const gatewayKey = await createBenchAccount(gateway.url, gateway.adminToken);
  const baselineKey = baseline ? await createBenchAccount(baseline.url, baseline.adminToken) : undefined;
  const gatewayPid = gateway.child.proc.pid;
  return {
    endpoints: {
      direct: simUrl,
      bare: `http://${HOST}:${barePort}`,
      gateway: gateway.url,
      gatewayKey,
      ...(baseline && baselineKey !== undefined ? { baseline: { url: baseline.url, key: baselineKey } } : {}),
    },
    pids: {
      direct: sim.proc.pid,
      bare: bare.proc.pid,
      gateway: gatewayPid,
      cross: gatewayPid,
      cached: gatewayPid,
      ...(baseline ? { baseline: baseline.child.proc.pid } : {}),
    },
  };
}
