import { ConfigError, loadConfig } from "../config/load-config.ts";
import type { Fault } from "../config/schema.ts";
import { answerInfoFlags } from "../ops/answer-info-flags.ts";
import { startSim } from "./start-sim.ts";

const USAGE = `Usage: bun run sim [--help | --version]

Starts the simulated upstream on its own: the Messages, Chat Completions and Responses APIs, with
answers, streams, tool calls and faults driven by the request (see src/sim/README.md).

  SIM_PORT, SIM_HOST      where to listen (default 8788, 127.0.0.1)
  ROUTELANE_CONFIG        a gateway config file: its simulated models' faults apply here too`;

/** Per-model faults of the config's sim models, keyed by upstream id (only when ROUTELANE_CONFIG is set). */
function configFaults(): Record<string, Fault> {
  if (!process.env.ROUTELANE_CONFIG) return {};
  const config = loadConfig(process.env);
  const faults: Record<string, Fault> = {};
  for (const model of Object.values(config.models)) {
    if (config.providers[model.provider]?.kind === "sim" && model.faults) faults[model.upstreamId] = model.faults;
  }
  return faults;
}

function readPort(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 8788;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`SIM_PORT: expected an integer from 0 to 65535, got "${raw}"`);
  return port;
}

async function main(): Promise<void> {
  if (answerInfoFlags(process.argv.slice(2), USAGE, (text) => console.log(text))) return;
  const sim = await startSim({
    port: readPort(process.env.SIM_PORT),
    hostname: process.env.SIM_HOST || "127.0.0.1",
    faults: configFaults(),
  });
  console.log(`sim listening on ${sim.url}`);
  const shutdown = (): void => {
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `sim: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
