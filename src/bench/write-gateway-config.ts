import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../config/default-config.ts";
import type { FileConfig } from "../config/schema.ts";

/**
 * Writes the built-in config with the `sim` provider pointed at the external simulated upstream.
 * A `baseUrl` is what stops the gateway from starting its own in-process sim, which would share
 * the gateway's event loop and make the comparison with the bare proxy unfair.
 */
export function writeGatewayConfig(dir: string, simUrl: string): string {
  const config: FileConfig = structuredClone(DEFAULT_CONFIG);
  const sim = config.providers.sim;
  if (!sim) throw new Error("DEFAULT_CONFIG has no `sim` provider");
  config.providers.sim = { ...sim, baseUrl: simUrl };
  const path = join(dir, "routelane.bench.json");
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}
