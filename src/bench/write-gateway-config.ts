import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBenchConfig } from "./build-bench-config.ts";

/**
 * Writes the bench's gateway config with the `sim` provider pointed at the external simulated
 * upstream. A `baseUrl` is what stops the gateway from starting its own in-process sim, which
 * would share the gateway's event loop and make the comparison with the bare proxy unfair.
 */
export function writeGatewayConfig(dir: string, simUrl: string): string {
  const path = join(dir, "routelane.bench.json");
  writeFileSync(path, JSON.stringify(buildBenchConfig(simUrl), null, 2));
  return path;
}
