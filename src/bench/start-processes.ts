import { join } from "node:path";
import type { Child, ChildGroup } from "./child-group.ts";
import { bareProxyEnv } from "./bare-proxy-env.ts";
import { createBenchAccount } from "./create-bench-account.ts";
import { findFreePort } from "./find-free-port.ts";
import { readProcessMemory } from "./read-process-memory.ts";
import { COLLECTOR_LOG_ENV, createCollectorLog, type CollectorLog } from "./read-collector-log.ts";
import { jitDumpEnvironment } from "./record-perf.ts";
import type { BenchTarget, TargetEndpoints } from "./scenarios.ts";
import { BENCH_HOST, spawnGateway, type GatewayProcess } from "./spawn-gateway.ts";
import { waitUntilReady } from "./wait-until-ready.ts";
import { writeGatewayConfig } from "./write-gateway-config.ts";

const ROOT = join(import.meta.dir, "..", "..");

export interface BenchProcesses {
  readonly endpoints: TargetEndpoints;
  /** The process that serves each target, for CPU and memory accounting; `baseline` only when its gateway runs. */
  readonly pids: Readonly<Record<Exclude<BenchTarget, "baseline">, number>> & { readonly baseline?: number | undefined };
  readonly gateway: GatewayProcess;
  readonly sim: Child;
  readonly bare: Child;
  /** The gateway's VmHWM when it first answered: a start from source on an empty data directory. */
  readonly gatewayStartPeakBytes: number | undefined;
  /** The gateway's RSS once its account exists, before any load. */
  readonly gatewayIdleRssBytes: number | undefined;
  /** What the collectors of the bare proxy and the gateways have done so far, by process id (from their logs). */
  readonly collectors: ReadonlyMap<number, CollectorLog>;
}

export interface StartOptions {
  /** The caller's temp dir (removed by the caller): the config and the PGlite data go here. */
  readonly dir: string;
  readonly databaseUrl?: string | undefined;
  readonly redisUrl?: string | undefined;
  readonly cpuProfDir?: string | undefined;
  /** The jitdump directory of the gateway and the bare proxy, for `--perf`. */
  readonly jitDumpDir?: string | undefined;
  readonly baselineDir?: string | undefined;
  readonly baselineEnv?: Readonly<Record<string, string>>;
  /** The baseline gateway's own database when the gateway runs on Postgres: never the gateway's. */
  readonly baselineDatabaseUrl?: string | undefined;
}

/** The simulated upstream on a port of its own, without the caller's per-model faults. */
export function spawnSim(group: ChildGroup): { child: Child; url: string; port: number } {
  const port = findFreePort(BENCH_HOST);
  // The sim reads per-model faults from ROUTELANE_CONFIG; a caller's config must not inject faults here.
  const env: Record<string, string | undefined> = { ...process.env, SIM_PORT: String(port), SIM_HOST: BENCH_HOST };
  delete env.ROUTELANE_CONFIG;
  const child = group.spawn("sim", [process.execPath, "run", join(ROOT, "src/sim/main.ts")], env, { server: true });
  return { child, url: `http://${BENCH_HOST}:${port}`, port };
}

/**
 * Starts the simulated upstream, the bare proxy and the gateway, each in its own process so none
 * shares an event loop with another or with the load generator, then makes a gateway API key.
 * With `baselineDir`, a second gateway from that checkout joins them, on the same config and sim
 * and Redis (if any) but with its own account and its own database: PGlite data of its own, or
 * `baselineDatabaseUrl` when the gateway runs on Postgres.
 */
export async function startProcesses(group: ChildGroup, options: StartOptions): Promise<BenchProcesses> {
  const { dir } = options;
  // Both gateways on one database would mix their usage, keys and logs, and each would slow the other's writes.
  if (options.baselineDir !== undefined && options.databaseUrl !== undefined && (options.baselineDatabaseUrl === undefined || options.baselineDatabaseUrl === options.databaseUrl))
    throw new Error("startProcesses: a baseline gateway next to a Postgres gateway needs a database of its own");
  const sim = spawnSim(group);
  const barePort = findFreePort(BENCH_HOST);
  const bareCollector = createCollectorLog();
  const bare = group.spawn(
    "bare proxy",
    [process.execPath, "run", join(ROOT, "src/bench/bare-proxy.ts")],
    { ...bareProxyEnv(process.env, barePort, sim.url), ...(options.jitDumpDir ? jitDumpEnvironment(options.jitDumpDir) : {}), ...COLLECTOR_LOG_ENV },
    { server: true, stderr: bareCollector.read },
  );

  const configPath = writeGatewayConfig(dir, sim.url);
  const gatewayCollector = createCollectorLog();
  const baselineCollector = createCollectorLog();
  const gateway = spawnGateway(group, {
    name: "gateway",
    root: ROOT,
    configPath,
    dataDir: join(dir, "data"),
    databaseUrl: options.databaseUrl,
    redisUrl: options.redisUrl,
    cpuProfDir: options.cpuProfDir,
    jitDumpDir: options.jitDumpDir,
    env: COLLECTOR_LOG_ENV,
    stderr: gatewayCollector.read,
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
          databaseUrl: options.databaseUrl === undefined ? undefined : options.baselineDatabaseUrl,
          // One Redis serves both: every key the gateways write names its own account.
          redisUrl: options.redisUrl,
          cpuProfDir: undefined,
          env: { ...COLLECTOR_LOG_ENV, ...options.baselineEnv },
          stderr: baselineCollector.read,
        });

  let gatewayStartPeakBytes: number | undefined;
  await Promise.all([
    waitUntilReady(sim.child, { kind: "port", hostname: BENCH_HOST, port: sim.port }),
    waitUntilReady(bare, { kind: "port", hostname: BENCH_HOST, port: barePort }),
    // Read at once: the high-water mark of the start, before any request adds to it.
    waitUntilReady(gateway.child, { kind: "http", url: `${gateway.url}/` }, 120_000).then(() => {
      gatewayStartPeakBytes = readProcessMemory(gateway.child.proc.pid)?.peakBytes;
    }),
    ...(baseline ? [waitUntilReady(baseline.child, { kind: "http", url: `${baseline.url}/` }, 120_000)] : []),
  ]);
  const gatewayKey = await createBenchAccount(gateway.url, gateway.adminToken);
  const baselineKey = baseline ? await createBenchAccount(baseline.url, baseline.adminToken) : undefined;
  const gatewayPid = gateway.child.proc.pid;
  return {
    endpoints: {
      direct: sim.url,
      bare: `http://${BENCH_HOST}:${barePort}`,
      gateway: gateway.url,
      gatewayKey,
      ...(baseline && baselineKey !== undefined ? { baseline: { url: baseline.url, key: baselineKey } } : {}),
    },
    pids: {
      direct: sim.child.proc.pid,
      bare: bare.proc.pid,
      gateway: gatewayPid,
      cross: gatewayPid,
      cached: gatewayPid,
      ...(baseline ? { baseline: baseline.child.proc.pid } : {}),
    },
    gateway,
    sim: sim.child,
    bare,
    gatewayStartPeakBytes,
    gatewayIdleRssBytes: readProcessMemory(gatewayPid)?.rssBytes,
    collectors: new Map([
      [bare.proc.pid, bareCollector],
      [gatewayPid, gatewayCollector],
      ...(baseline ? [[baseline.child.proc.pid, baselineCollector] as const] : []),
    ]),
  };
}
