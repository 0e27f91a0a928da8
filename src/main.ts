import { ConfigError, loadConfig } from "./config/load-config.ts";
import { startGateway } from "./start-gateway.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`routelane: bad setting: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const gateway = await startGateway(config);
  const database = config.databaseUrl ? "postgres" : `pglite (${config.dataDir})`;
  console.log(`routelane listening on ${gateway.url} (database: ${database}${gateway.sim ? `, simulated upstream: ${gateway.sim.url}` : ""})`);
  if (gateway.demoKey) {
    console.log(`demo Enterprise account created; its API key (shown once, also in ${config.dataDir}/demo-key.txt):`);
    console.log(`  ${gateway.demoKey}`);
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`routelane: ${signal} received, shutting down`);
    gateway.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

await main().catch((error: unknown) => {
  console.error(`routelane: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
