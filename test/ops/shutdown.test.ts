import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../src/db/client.ts";
import { createShutdown } from "../../src/ops/create-shutdown.ts";
import { createBenchAccount } from "../../src/bench/create-bench-account.ts";
import { spawnGateway, type SpawnedGateway, type SpawnOptions } from "../helpers/spawn-gateway.ts";
import { slowFastTier, startSlowUpstream } from "./slow-upstream.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Reads the rest of a child's stdout until a line matching each of `wanted` has shown up (one read can hold several lines). */
async function waitForLine(gateway: SpawnedGateway, ...wanted: RegExp[]): Promise<void> {
  const reader = gateway.process.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const lines = text.split("\n");
      if (wanted.every((pattern) => lines.some((line) => pattern.test(line)))) return;
      const { value, done } = await reader.read();
      if (done) throw new Error(`stdout ended without ${wanted}: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

const ADMIN_TOKEN = "shutdown-test-admin-token-0123";

async function startOnSlowUpstream(
  baseUrl: string,
  spawn: SpawnOptions = {},
): Promise<{ gateway: SpawnedGateway; key: string; configPath: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "routelane-shutdown-"));
  dirs.push(dir);
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(slowFastTier(baseUrl)));
  const env = {
    PORT: "0",
    ROUTELANE_DATA_DIR: dir,
    ROUTELANE_CONFIG: configPath,
    DATABASE_URL: undefined,
    ROUTELANE_LOG_LEVEL: "warn",
    ROUTELANE_SHUTDOWN_TIMEOUT_MS: "20000",
    ROUTELANE_ADMIN_TOKEN: ADMIN_TOKEN,
  };
  const gateway = await spawnGateway(env, false, spawn);
  return { gateway, key: await createBenchAccount(gateway.url, ADMIN_TOKEN), configPath, dir };
}

const openStream = (url: string, key: string): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    // Every stream here must reach the upstream, never the response cache.
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "cache-control": "no-cache" },
    body: JSON.stringify({ model: "fast", stream: true, messages: [{ role: "user", content: "hello" }] }),
  });

describe("graceful shutdown of the process", () => {
  test("SIGTERM during a stream: new connections refused, the stream completes, exit 0", async () => {
    const upstream = startSlowUpstream();
    const { gateway, key, dir } = await startOnSlowUpstream(upstream.server.url.origin);
    try {
      const res = await openStream(gateway.url, key);
      expect(res.status).toBe(200);
      const requestId = res.headers.get("x-router-request-id")!;
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toContain("first ");
      await upstream.holding;

      gateway.process.kill("SIGTERM");
      await waitForLine(gateway, /SIGTERM received, draining/);
      // The listener closes right after the signal is handled.
      let refused = false;
      for (let i = 0; i < 50 && !refused; i++) {
        refused = await fetch(`${gateway.url}/healthz`, { keepalive: false }).then(
          async (r) => {
            await r.text();
            return false;
          },
          () => true,
        );
      }
      expect(refused).toBe(true);

      upstream.release();
      let rest = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      expect(rest).toContain("third");
      expect(rest).toContain("data: [DONE]");
      expect(await gateway.process.exited).toBe(0);
      // The stream's usage was written before the process exited.
      const database = await openDatabase({ dataDir: dir });
      try {
        const rows = await database.rows<{ status: number; stream_endpoint: string }>(
          sql`select status, endpoint as stream_endpoint from usage_records where request_id = ${requestId}`,
        );
        expect(rows).toEqual([{ status: 200, stream_endpoint: "chat" }]);
      } finally {
        await database.close();
      }
    } finally {
      gateway.process.kill("SIGKILL");
      upstream.stop();
    }
  }, 60_000);

  test("`kill -TERM -- -PGID` on `bun start` (the signal arrives twice): one drain, the stream completes, exit 0", async () => {
    const upstream = startSlowUpstream();
    const { gateway, key } = await startOnSlowUpstream(upstream.server.url.origin, { command: ["bun", "start"], detached: true });
    try {
      const res = await openStream(gateway.url, key);
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("first ");
      await upstream.holding;

      // The whole group, as a supervisor or Ctrl-C does: `bun start`'s own process passes the
      // signal on to the gateway, which also gets it directly.
      process.kill(-gateway.process.pid, "SIGTERM");
      // Before the fix the second delivery meant "exit now": exit 1 with the stream cut. (On a
      // busy machine the two deliveries can merge into one pending signal; they never split the drain.)
      await waitForLine(gateway, /SIGTERM received, draining/);

      upstream.release();
      let rest = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      expect(rest).toContain("data: [DONE]");
      expect(await gateway.process.exited).toBe(0);
    } finally {
      try {
        process.kill(-gateway.process.pid, "SIGKILL");
      } catch {
        // The group has already gone.
      }
      upstream.stop();
    }
  }, 60_000);

  test("SIGHUP reloads the config file; a second SIGTERM a second later exits at once", async () => {
    const upstream = startSlowUpstream();
    const { gateway, key, configPath } = await startOnSlowUpstream(upstream.server.url.origin);
    try {
      writeFileSync(configPath, JSON.stringify(DEFAULT_CONFIG));
      gateway.process.kill("SIGHUP");
      await waitForLine(gateway, /config reloaded/);
      const quick = await openStream(gateway.url, key);
      expect(quick.headers.get("x-router-model")).toBe("sim-fast");
      await quick.text();

      writeFileSync(configPath, JSON.stringify(slowFastTier(upstream.server.url.origin)));
      gateway.process.kill("SIGHUP");
      await waitForLine(gateway, /config reloaded/);
      const held = await openStream(gateway.url, key);
      expect(held.headers.get("x-router-model")).toBe("slow-chat");
      await upstream.holding;

      gateway.process.kill("SIGTERM");
      await waitForLine(gateway, /draining/);
      // Within a second a second signal is taken for the same one delivered twice; past it, it means "now".
      await Bun.sleep(1_100);
      gateway.process.kill("SIGTERM");
      // Exits with the stream still held (it would otherwise wait up to the 20 s deadline).
      expect(await gateway.process.exited).toBe(1);
      await held.body?.cancel().catch(() => {});
    } finally {
      gateway.process.kill("SIGKILL");
      upstream.release();
      upstream.stop();
    }
  }, 60_000);
});

describe("createShutdown", () => {
  test("stops accepting, waits, then runs flushes before close steps, in order, past a failing one", async () => {
    const steps: string[] = [];
    const reports: string[] = [];
    const shutdown = createShutdown({
      deadlineMs: 1000,
      stopAccepting: async () => void steps.push("stop accepting"),
      waitForIdle: async () => {
        steps.push("wait");
        return true;
      },
      forceClose: async () => void steps.push("force"),
      report: (message) => void reports.push(message),
    });
    shutdown.addCloseStep({ name: "database", run: async () => void steps.push("close database") });
    shutdown.addDrainHook({ name: "usage", run: async () => void steps.push("flush usage") });
    shutdown.addDrainHook({ name: "cache", run: async () => Promise.reject(new Error("cache down")) });
    expect(shutdown.draining).toBe(false);
    const first = shutdown.run();
    expect(shutdown.draining).toBe(true);
    expect(shutdown.run()).toBe(first);
    await first;
    expect(steps).toEqual(["stop accepting", "wait", "flush usage", "close database"]);
    expect(reports).toEqual(["shutdown step cache failed: cache down"]);
  });

  test("past the deadline, what is still open is closed before the drain", async () => {
    const steps: string[] = [];
    const shutdown = createShutdown({
      deadlineMs: 5,
      stopAccepting: async () => {},
      waitForIdle: async () => false,
      forceClose: async () => void steps.push("force"),
      report: (message) => void steps.push(message.split(" ")[0]!),
    });
    shutdown.addDrainHook({ name: "usage", run: async () => void steps.push("flush usage") });
    await shutdown.run();
    expect(steps).toEqual(["shutdown", "force", "flush usage"]);
  });
});
