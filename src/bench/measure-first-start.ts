import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ChildGroup } from "./child-group.ts";
import { readProcessMemory } from "./read-process-memory.ts";
import { spawnGateway } from "./spawn-gateway.ts";
import { waitUntilReady } from "./wait-until-ready.ts";
import { writeGatewayConfig } from "./write-gateway-config.ts";

const ROOT = join(import.meta.dir, "..", "..");

/**
 * A first start from source: `bun run src/main.ts` on an empty data directory and the embedded
 * database (no DATABASE_URL), stopped once it answers. Its VmHWM then is the peak of the start,
 * initdb included. For runs whose gateway is on Postgres; on PGlite the bench's own gateway is such
 * a start already.
 */
export async function measureFirstStart(group: ChildGroup, dir: string, simUrl: string): Promise<number | undefined> {
  const home = join(dir, "first-start");
  mkdirSync(home, { recursive: true });
  const gateway = spawnGateway(group, {
    name: "first-start gateway",
    root: ROOT,
    configPath: writeGatewayConfig(home, simUrl),
    dataDir: join(home, "data"),
    databaseUrl: undefined,
    redisUrl: undefined,
    cpuProfDir: undefined,
  });
  try {
    await waitUntilReady(gateway.child, { kind: "http", url: `${gateway.url}/` }, 120_000);
    return readProcessMemory(gateway.child.proc.pid)?.peakBytes;
  } finally {
    await group.stop(gateway.child);
  }
}
