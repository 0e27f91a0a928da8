import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnGateway } from "../helpers/spawn-gateway.ts";

const work = mkdtempSync(join(tmpdir(), "routelane-first-start-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The process's peak resident set so far (Linux), in bytes. */
function peakRss(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmHWM for ${pid}`);
  return Number(match[1]) * 1024;
}

test.skipIf(!existsSync("/proc/self/status"))(
  "a first start from source on an empty data dir peaks under 500 MB: initdb's memory is not the gateway's",
  async () => {
    const dataDir = join(work, "data");
    const gateway = await spawnGateway(
      { PORT: "0", ROUTELANE_DATA_DIR: dataDir, DATABASE_URL: undefined, REDIS_URL: undefined, ROUTELANE_CONFIG: undefined, ROUTELANE_LOG_LEVEL: "warn" },
      true,
    );
    try {
      // Listening with the demo account seeded: the data dir was created, migrated and written.
      // initdb in the gateway's own process (on a thread it then stopped) took its peak to 1.06 GB;
      // in a child process of its own the gateway peaked at about 0.31 GB.
      expect(existsSync(join(dataDir, "pglite", "PG_VERSION"))).toBe(true);
      expect(peakRss(gateway.process.pid)).toBeLessThan(500 * 1024 * 1024);
    } finally {
      gateway.process.kill("SIGKILL");
      await gateway.process.exited;
    }
  },
  120_000,
);
