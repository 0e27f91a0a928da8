import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_REDIS_PREFIX } from "./bench-redis-prefix.ts";
import { buildBenchConfig } from "./build-bench-config.ts";

/**
 * Writes the bench's gateway config with the `sim` provider pointed at the external simulated
 * upstream. A `baseUrl` is what stops the gateway from starting its own in-process sim, which
 * would share the gateway's event loop and make the comparison with the bare proxy unfair. Redis
 * keys get a prefix of their own per gateway, within the run's, so a run on a shared Redis starts
 * from empty limits and cache and touches nobody else's keys.
 */
export function writeGatewayConfig(dir: string, simUrl: string): string {
  const path = join(dir, "routelane.bench.json");
  const config = { ...buildBenchConfig(simUrl), redis: { keyPrefix: `${BENCH_REDIS_PREFIX}${randomBytes(6).toString("hex")}:` } };
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}
