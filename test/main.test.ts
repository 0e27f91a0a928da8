import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBenchAccount } from "../src/bench/create-bench-account.ts";
import { DEFAULT_CONFIG } from "../src/config/default-config.ts";
import { spawnGateway, type SpawnedGateway } from "./helpers/spawn-gateway.ts";
import { openTestDatabase } from "./helpers/test-database.ts";

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "routelane-main-"));
  dirs.push(dir);
  return dir;
};
// Several PGlite data dirs: on a busy machine their removal takes longer than the default hook timeout.
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}, 60_000);

/** Runs the start command with a bad setting: exit code 2 and one line naming it. */
async function badStart(env: Record<string, string | undefined>): Promise<{ code: number; stderr: string }> {
  const child = Bun.spawn(["bun", "run", "src/main.ts"], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, ROUTELANE_DATA_DIR: tempDir(), PORT: "0", ...env } as Record<string, string>,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: await child.exited, stderr: await new Response(child.stderr).text() };
}

const quickStart = async () => {
  const dataDir = tempDir();
  const env = { PORT: "0", ROUTELANE_DATA_DIR: dataDir, DATABASE_URL: undefined, ROUTELANE_CONFIG: undefined };
  const first = await spawnGateway(env, true);
  const keyLine = first.startupLines.find((l) => /^\s+rl_[A-Za-z0-9]+$/.test(l))!;
  const key = keyLine.trim();
  const keyFile = join(dataDir, "demo-key.txt");
  expect(readFileSync(keyFile, "utf8").trim()).toBe(key);
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);

  const res = await fetch(`${first.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "smart-plus", max_tokens: 64, messages: [{ role: "user", content: "hello" }] }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-router-tier")).toBe("smart-plus");
  first.process.kill("SIGTERM");
  expect(await first.process.exited).toBe(0);

  // A second start on the same database keeps the account and prints no key.
  const second = await spawnGateway(env, false);
  expect(second.startupLines.join("\n")).not.toContain("rl_");
  const models = await fetch(`${second.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id)).toEqual(["fast", "normal", "smart", "smart-plus"]);
  second.process.kill("SIGTERM");
  expect(await second.process.exited).toBe(0);
};

const ADMIN_TOKEN = "main-test-admin-token-0123456789";

/** A config file with a real provider: a production start. The key variable only has to be set. */
function realProviderConfig(): string {
  const path = join(tempDir(), "config.json");
  const sonnet = { ...DEFAULT_CONFIG.models["sim-normal"]!, provider: "anthropic", upstreamId: "claude-sonnet-5", apis: ["messages"] };
  const tiers = Object.fromEntries(Object.entries(DEFAULT_CONFIG.tiers).map(([name, tier]) => [name, { ...tier, models: ["sonnet"] }]));
  writeFileSync(path, JSON.stringify({ providers: { anthropic: { kind: "anthropic", apiKeyEnv: "ROUTELANE_TEST_ANTHROPIC_KEY" } }, models: { sonnet }, tiers }));
  return path;
}

/** The rest of a stream the start-up reader has already read from. */
async function readRest(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
  return text;
}

/** Stops a spawned gateway and returns everything it wrote, startup lines included. */
async function stopAndRead(gateway: SpawnedGateway): Promise<{ code: number; output: string }> {
  gateway.process.kill("SIGTERM");
  const [code, rest, stderr] = await Promise.all([gateway.process.exited, readRest(gateway.process.stdout), new Response(gateway.process.stderr).text()]);
  return { code, output: [...gateway.startupLines, rest, stderr].join("\n") };
}

/**
 * A production start (a config file, or Postgres): no demo account, no key anywhere in its
 * output, one line on how to create the first account; the admin API creates it.
 */
async function productionStart(env: Record<string, string | undefined>): Promise<void> {
  const dataDir = tempDir();
  const startEnv = { PORT: "0", ROUTELANE_DATA_DIR: dataDir, ROUTELANE_ADMIN_TOKEN: ADMIN_TOKEN, ROUTELANE_TEST_ANTHROPIC_KEY: "sk-test", ...env };
  const first = await spawnGateway(startEnv, false);
  const key = await createBenchAccount(first.url, ADMIN_TOKEN);
  const models = await fetch(`${first.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  expect(models.status).toBe(200);
  await models.text();
  const { code, output } = await stopAndRead(first);
  expect(code).toBe(0);
  // Before the fix: "demo Enterprise account created; its API key ..." and the key on stdout.
  expect(output).not.toMatch(/rl_[A-Za-z0-9]/);
  expect(output).not.toContain("demo");
  expect(existsSync(join(dataDir, "demo-key.txt"))).toBe(false);
  const hint = output.split("\n").filter((line) => line.includes("no accounts yet"));
  expect(hint).toEqual(["routelane: no accounts yet; create the first with `bun run admin accounts create --plan Enterprise` (or POST /admin/accounts), ROUTELANE_ADMIN_TOKEN set"]);

  // With an account in the database the line is gone.
  const second = await spawnGateway(startEnv, false);
  const again = await stopAndRead(second);
  expect(again.output).not.toContain("no accounts yet");
}

describe("bun start", () => {
  test("first start of the offline demo (built-in config, PGlite) creates the demo account, prints its key once, writes it 0600", async () => {
    await quickStart();
  }, 60_000);

  test.skipIf(!process.env.DATABASE_URL)("on Postgres (DATABASE_URL): no demo account, no key printed, one line on how to create the first", async () => {
    const db = await openTestDatabase();
    try {
      await productionStart({ DATABASE_URL: db.databaseUrl, ROUTELANE_CONFIG: undefined });
    } finally {
      await db.close();
    }
  }, 60_000);

  test("with a config file of real providers (PGlite): no demo account, no key printed, one line on how to create the first", async () => {
    await productionStart({ DATABASE_URL: undefined, ROUTELANE_CONFIG: realProviderConfig() });
  }, 60_000);

  test("without an admin token the line says to set one first", async () => {
    const gateway = await spawnGateway({ PORT: "0", ROUTELANE_DATA_DIR: tempDir(), DATABASE_URL: undefined, ROUTELANE_ADMIN_TOKEN: undefined, ROUTELANE_TEST_ANTHROPIC_KEY: "sk-test", ROUTELANE_CONFIG: realProviderConfig() }, false);
    const { output } = await stopAndRead(gateway);
    expect(output.split("\n").filter((line) => line.includes("no accounts yet"))).toEqual([
      "routelane: no accounts yet; start with ROUTELANE_ADMIN_TOKEN set (16+ characters), then create the first with `bun run admin accounts create --plan Enterprise` (or POST /admin/accounts)",
    ]);
  }, 60_000);

  test.each([
    [{ PORT: "http" }, "PORT"],
    [{ DATABASE_URL: "mysql://localhost/x" }, "DATABASE_URL"],
    [{ ROUTELANE_CONFIG: "/nonexistent.json" }, "ROUTELANE_CONFIG"],
  ])("a bad setting %p stops start-up with one line naming it", async (env, name) => {
    const { code, stderr } = await badStart(env);
    expect(code).toBe(2);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`routelane: bad setting: ${name}`);
  }, 20_000);

  test("a second gateway on a port in use stops with one line (exit 2); the first keeps the port", async () => {
    const first = await spawnGateway({ PORT: "0", ROUTELANE_DATA_DIR: tempDir(), DATABASE_URL: undefined, ROUTELANE_CONFIG: undefined, ROUTELANE_LOG_LEVEL: "warn" }, false);
    try {
      const port = new URL(first.url).port;
      // Before the fix the second process listened beside the first (SO_REUSEPORT) and never exited.
      const { code, stderr } = await badStart({ PORT: port, DATABASE_URL: undefined, ROUTELANE_CONFIG: undefined });
      expect(code).toBe(2);
      const lines = stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(`routelane: cannot listen: 127.0.0.1:${port} is already in use (another gateway still running?); stop it or set PORT`);
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      first.process.kill("SIGTERM");
      await first.process.exited;
    }
  }, 60_000);

  test("a second gateway on a data dir in use stops with one line (exit 2) and leaves the database to the first", async () => {
    const dataDir = tempDir();
    const first = await spawnGateway({ PORT: "0", ROUTELANE_DATA_DIR: dataDir, DATABASE_URL: undefined, ROUTELANE_CONFIG: undefined, ROUTELANE_LOG_LEVEL: "warn" }, false);
    try {
      // Before the fix the second process opened the same PGlite files beside the first and served.
      const { code, stderr } = await badStart({ ROUTELANE_DATA_DIR: dataDir, DATABASE_URL: undefined, ROUTELANE_CONFIG: undefined });
      expect(code).toBe(2);
      const lines = stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        `routelane: cannot start: data dir ${dataDir} is in use by another process (pid ${first.process.pid}): one gateway owns an embedded database; stop that one, give this one its own ROUTELANE_DATA_DIR, or run both on Postgres (DATABASE_URL)`,
      );
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      first.process.kill("SIGTERM");
      await first.process.exited;
    }
    // The lock goes with its process: the dir opens again.
    const again = await spawnGateway({ PORT: "0", ROUTELANE_DATA_DIR: dataDir, DATABASE_URL: undefined, ROUTELANE_CONFIG: undefined, ROUTELANE_LOG_LEVEL: "warn" }, false);
    again.process.kill("SIGTERM");
    expect(await again.process.exited).toBe(0);
  }, 60_000);

  test("a config file with a wrong value names its path in the file", async () => {
    const path = join(tempDir(), "bad.json");
    writeFileSync(path, JSON.stringify({ providers: {}, models: {}, tiers: {} }));
    const { code, stderr } = await badStart({ ROUTELANE_CONFIG: path });
    expect(code).toBe(2);
    expect(stderr.trim()).toMatch(/^routelane: bad setting: ROUTELANE_CONFIG .*bad\.json: \/tiers/);
  }, 20_000);
});
