import { ConfigError, loadConfig } from "./config/load-config.ts";
import type { Config } from "./config/schema.ts";
import { answerInfoFlags } from "./ops/answer-info-flags.ts";
import { PortInUseError } from "./ops/ensure-port-free.ts";
import { DataDirInUseError } from "./db/lock-data-dir.ts";
import { loadLibc } from "./ops/load-libc.ts";
import { sizeProcess } from "./ops/size-process.ts";
import type { RunningGateway } from "./start-gateway.ts";

const USAGE = `Usage: routelane [--help | --version]
       bun start [--help | --version]      (from a checkout)

Starts the gateway: it listens for /v1/messages, /v1/chat/completions and /v1/responses, with a
tier (fast, normal, smart, smart-plus) in \`model\`. Everything is set in the environment:

  PORT, HOST              where to listen (default 8787, 127.0.0.1)
  DATABASE_URL            postgres://… for PostgreSQL; unset: the embedded PGlite in ROUTELANE_DATA_DIR
  ROUTELANE_DATA_DIR      PGlite data and demo-key.txt (default ./data)
  REDIS_URL               limits, pins and the response cache shared by every instance
  ROUTELANE_CONFIG        JSON config file (providers, models, tiers, routing); unset: built-in, all simulated
  ROUTELANE_ADMIN_TOKEN   turns on /admin and /console (16+ characters)

With none of them it is the offline demo: simulated models, PGlite in ./data, a demo key printed
once. SIGTERM or SIGINT drain and exit 0; SIGHUP re-reads ROUTELANE_CONFIG. Start-up prints the
process id. Accounts and keys: \`bun run admin --help\`. More: README.md and docs/.`;

function configOrExit(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`routelane: bad setting: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * A stop signal this soon after the first is the same one delivered again: `kill -- -PGID` (a
 * supervisor, Ctrl-C in a shell) reaches both `bun run`'s own process, which passes it on, and this one.
 */
const SAME_SIGNAL_MS = 1_000;

/**
 * Signal handlers go in before anything is printed: a supervisor that reads "listening" and
 * stops the process at once must get a clean shutdown, not the default kill. SIGTERM/SIGINT drain
 * (in-flight requests and streams finish, usage and logs are flushed) and exit 0; another one more
 * than a second later exits at once. SIGHUP reloads the config file.
 */
function handleSignals(started: Promise<RunningGateway>): void {
  let stoppingSince: number | undefined;
  const stop = (signal: string): void => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < SAME_SIGNAL_MS) {
        console.log(`routelane: ${signal} again within a second: still draining`);
        return;
      }
      console.error(`routelane: second ${signal}, exiting now`);
      process.exit(1);
    }
    stoppingSince = performance.now();
    console.log(`routelane: ${signal} received, draining`);
    started
      .then((gateway) => gateway.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`routelane: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGHUP", () => {
    void started.then((gateway) => {
      try {
        const config = gateway.reload();
        console.log(`routelane: config reloaded (tiers: ${Object.keys(config.tiers).join(", ")})`);
      } catch (error) {
        console.error(`routelane: config reload rejected, the old config stays: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  });
}

function firstAccountHint(config: Config): string {
  const create = "`bun run admin accounts create --plan Enterprise` (or POST /admin/accounts)";
  return config.adminToken
    ? `create the first with ${create}, ROUTELANE_ADMIN_TOKEN set`
    : `start with ROUTELANE_ADMIN_TOKEN set (16+ characters), then create the first with ${create}`;
}

async function main(): Promise<void> {
  const config = configOrExit();
  // Before anything is loaded or started: this may replace the process with itself, sized for its
  // streams, and the modules loaded before it would be loaded twice.
  const sizing = sizeProcess(config.maxUpstreamRequests, loadLibc());
  // Loaded only now: the executable unpacks its migrations when this module is loaded.
  const { startGateway } = await import("./start-gateway.ts");
  const started = startGateway(config);
  handleSignals(started);
  const gateway = await started;
  const database = config.databaseUrl ? "postgres" : `pglite (${config.dataDir})`;
  console.log(`routelane listening on ${gateway.url} (pid ${process.pid}, database: ${database}${gateway.sim ? `, simulated upstream: ${gateway.sim.url}` : ""})`);
  if (gateway.demoKey) {
    console.log(`demo Enterprise account created; its API key (shown once, also in ${config.dataDir}/demo-key.txt):`);
    console.log(`  ${gateway.demoKey}`);
  }
  // Outside the offline demo no account is made for the operator: a key printed here would end up in a log.
  if (gateway.noAccounts) console.log(`routelane: no accounts yet; ${firstAccountHint(config)}`);
  console.log(sizing.info);
  for (const warning of sizing.warnings) console.error(warning);
}

// `--help` and `--version` are answered before anything is read, started or written (no ./data).
if (answerInfoFlags(process.argv.slice(2), USAGE, (text) => console.log(text))) process.exit(0);
await main().catch((error: unknown) => {
  if (error instanceof PortInUseError) {
    console.error(`routelane: cannot listen: ${error.message}`);
    process.exit(2);
  }
  // Like a port in use: another gateway has it, and starting anyway would corrupt the database.
  if (error instanceof DataDirInUseError) {
    console.error(`routelane: cannot start: ${error.message}`);
    process.exit(2);
  }
  console.error(`routelane: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
