import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBenchAccount } from "../../src/bench/create-bench-account.ts";
import type { HoldStreamsLine, HoldStreamsOptions } from "../../src/bench/hold-streams.ts";
import { spawnGateway } from "../helpers/spawn-gateway.ts";
import { slowFastTier, startSlowUpstream } from "./slow-upstream.ts";

/**
 * More streams than Bun's default fetch pool (256) through one real gateway process: every one
 * reaches the upstream at once and finishes. The client is a process of its own, with its own
 * pool sized, as the bench's load generator runs.
 */
const STREAMS = 400;
const ADMIN_TOKEN = "open-streams-admin-token-0123456";
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test(`${STREAMS} streams open at once through one gateway process: all reach the upstream together and finish`, async () => {
  const upstream = startSlowUpstream();
  const dir = mkdtempSync(join(tmpdir(), "routelane-streams-"));
  dirs.push(dir);
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(slowFastTier(upstream.server.url.origin)));
  const gateway = await spawnGateway(
    { PORT: "0", ROUTELANE_DATA_DIR: dir, ROUTELANE_CONFIG: configPath, DATABASE_URL: undefined, REDIS_URL: undefined, ROUTELANE_ADMIN_TOKEN: ADMIN_TOKEN, ROUTELANE_LOG_LEVEL: "warn" },
    false,
  );
  const options: HoldStreamsOptions = {
    url: gateway.url,
    key: await createBenchAccount(gateway.url, ADMIN_TOKEN),
    body: { model: "fast", stream: true, messages: [{ role: "user", content: "hold" }] },
    streams: STREAMS,
    batch: STREAMS,
    probes: 0,
    probeEveryMs: 0,
    probeBody: {},
  };
  const client = Bun.spawn(["bun", "run", join(import.meta.dir, "../../src/bench/hold-streams.ts"), JSON.stringify(options)], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(STREAMS * 2) },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    // Before the fix the gateway's fetch pool was Bun's 256: the rest waited and this never came.
    await upstream.holdingAtLeast(STREAMS);
    upstream.release();
    const lines = (await new Response(client.stdout).text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as HoldStreamsLine);
    expect(lines[0]).toEqual({ event: "opened", opened: STREAMS });
    expect(lines[1]).toMatchObject({ event: "done", streams: STREAMS, opened: STREAMS, completed: STREAMS, errors: 0 });
    expect(await client.exited).toBe(0);
  } finally {
    client.kill();
    upstream.release();
    gateway.process.kill("SIGTERM");
    await gateway.process.exited;
    upstream.stop();
  }
}, 120_000);
