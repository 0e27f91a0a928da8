import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnGateway } from "./helpers/spawn-gateway.ts";
import { openTestDatabase } from "./helpers/test-database.ts";

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "routelane-main-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

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

const quickStart = async (databaseUrl: string | undefined) => {
  const dataDir = tempDir();
  const env = { PORT: "0", ROUTELANE_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ROUTELANE_CONFIG: undefined };
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

describe("bun start", () => {
  test("first start on an empty PGlite database creates the demo account, prints its key once, writes it 0600", async () => {
    await quickStart(undefined);
  }, 60_000);

  test.skipIf(!process.env.DATABASE_URL)("the same on Postgres (DATABASE_URL)", async () => {
    const db = await openTestDatabase();
    try {
      await quickStart(db.databaseUrl);
    } finally {
      await db.close();
    }
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

  test("a config file with a wrong value names its path in the file", async () => {
    const path = join(tempDir(), "bad.json");
    writeFileSync(path, JSON.stringify({ providers: {}, models: {}, tiers: {} }));
    const { code, stderr } = await badStart({ ROUTELANE_CONFIG: path });
    expect(code).toBe(2);
    expect(stderr.trim()).toMatch(/^routelane: bad setting: ROUTELANE_CONFIG .*bad\.json: \/tiers/);
  }, 20_000);
});
