import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { ChildGroup } from "./child-group.ts";
import { createBenchAccount } from "./create-bench-account.ts";
import { findFreePort } from "./find-free-port.ts";
import type { BenchTarget, TargetEndpoints } from "./scenarios.ts";
import { waitUntilReady } from "./wait-until-ready.ts";
import { writeGatewayConfig } from "./write-gateway-config.ts";

const HOST = "127.0.0.1";
const ROOT = join(import.meta.dir, "..", "..");

export interface BenchProcesses {
  readonly endpoints: TargetEndpoints;
  /** The process that serves each target, for CPU accounting. */
  readonly pids: Readonly<Record<BenchTarget, number>>;
}

/** The environment without what would change which database or upstream the gateway uses. */
function gatewayEnv(extra: Record<string, string>, databaseUrl: string | undefined): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...extra };
  // An inherited DATABASE_URL would silently bench against some other Postgres; PGlite unless asked.
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return env;
}

/**
 * Starts the simulated upstream, the bare proxy and the gateway, each in its own process so none
 * shares an event loop with another or with the load generator, then makes a gateway API key.
 * `dir` (the caller's temp dir, removed by the caller) receives the config and the PGlite data.
 */
export async function startProcesses(
  group: ChildGroup,
  options: { dir: string; databaseUrl?: string | undefined; cpuProfDir?: string | undefined },
): Promise<BenchProcesses> {
  const { dir } = options;
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

  const gatewayPort = findFreePort(HOST);
  const adminToken = randomBytes(24).toString("hex");
  const gateway = group.spawn(
    "gateway",
    [
      process.execPath,
      ...(options.cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfDir}`] : []),
      "run",
      join(ROOT, "src/main.ts"),
    ],
    gatewayEnv(
      {
        PORT: String(gatewayPort),
        HOST,
        ROUTELANE_CONFIG: writeGatewayConfig(dir, simUrl),
        ROUTELANE_DATA_DIR: join(dir, "data"),
        ROUTELANE_ADMIN_TOKEN: adminToken,
      },
      options.databaseUrl,
    ),
    { server: true },
  );
  const gatewayUrl = `http://${HOST}:${gatewayPort}`;

  await Promise.all([
    waitUntilReady(sim, { kind: "port", hostname: HOST, port: simPort }),
    waitUntilReady(bare, { kind: "port", hostname: HOST, port: barePort }),
    waitUntilReady(gateway, { kind: "http", url: `${gatewayUrl}/` }),
  ]);
  const gatewayKey = await createBenchAccount(gatewayUrl, adminToken);
  return {
    endpoints: { direct: simUrl, bare: `http://${HOST}:${barePort}`, gateway: gatewayUrl, gatewayKey },
    pids: { direct: sim.proc.pid, bare: bare.proc.pid, gateway: gateway.proc.pid, cross: gateway.proc.pid, cached: gateway.proc.pid },
  };
}
