import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBenchConfig } from "../../src/bench/build-bench-config.ts";
import type { Child, ChildGroup } from "../../src/bench/child-group.ts";
import { spawnGateway } from "../../src/bench/spawn-gateway.ts";

const dir = mkdtempSync(join(tmpdir(), "routelane-spawn-gateway-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A group that records what it was asked to start and starts nothing. */
function recordingGroup(): { group: ChildGroup; spawned: Array<{ cmd: string[]; env: Record<string, string | undefined> }> } {
  const spawned: Array<{ cmd: string[]; env: Record<string, string | undefined> }> = [];
  const group = {
    spawn(name: string, cmd: string[], env: Record<string, string | undefined>) {
      spawned.push({ cmd, env });
      return { name } as Child;
    },
  } as ChildGroup;
  return { group, spawned };
}

describe("spawnGateway", () => {
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify({ ...buildBenchConfig("http://127.0.0.1:9"), server: { maxUpstreamRequests: 4_096 } }));
  const base = { name: "gateway", root: "/checkout", configPath, dataDir: join(dir, "data"), databaseUrl: undefined, redisUrl: undefined };

  test("under the CPU profiler, the gateway starts with its runtime tuning and its fetch pool set (it may not restart itself there), the run's own settings kept", () => {
    const { group, spawned } = recordingGroup();
    spawnGateway(group, { ...base, cpuProfDir: join(dir, "prof"), env: { MIMALLOC_PURGE_DELAY: "100" } });
    const [{ cmd, env }] = spawned as [{ cmd: string[]; env: Record<string, string | undefined> }];
    expect(cmd).toContain("--cpu-prof");
    expect(env).toMatchObject({ BUN_CONFIG_MAX_HTTP_REQUESTS: "4096", BUN_JSC_minEdenToOldGenerationRatio: "0.75", BUN_JSC_heapGrowthMaxIncrease: "1", MIMALLOC_PURGE_DELAY: "100" });
  });

  test("otherwise the gateway sizes itself at start, as from source", () => {
    const { group, spawned } = recordingGroup();
    spawnGateway(group, { ...base, cpuProfDir: undefined });
    expect(spawned[0]!.cmd).not.toContain("--cpu-prof");
    expect(spawned[0]!.env.BUN_CONFIG_MAX_HTTP_REQUESTS).toBe(process.env.BUN_CONFIG_MAX_HTTP_REQUESTS);
  });
});
