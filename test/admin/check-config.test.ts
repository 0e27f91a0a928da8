import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { validateFileConfig } from "../../src/config/load-config.ts";
import type { FileConfig, Provider } from "../../src/config/schema.ts";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";

/**
 * `bun run admin check-config [file]`, run as an operator runs it: the shipped example configs
 * validate; a provider is probed with a models call and reported in one line (reachable, key
 * accepted, models found), against the simulated upstream, a provider that refuses the key, and
 * addresses that cannot be reached. Nothing here needs a network beyond this machine.
 */

const ROOT = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "routelane-check-config-"));
let sim: SimServer;
let refusing: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  sim = await startSim({ port: 0 });
  refusing = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => Response.json({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }, { status: 401 }),
  });
});
afterAll(async () => {
  await sim.stop();
  await refusing.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

async function checkConfig(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", "run", join(ROOT, "src/cli/admin.ts"), "check-config", ...args], {
    cwd: ROOT,
    // No admin token and no ROUTELANE_CONFIG: the command needs neither.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

/** The default config with all its models at one provider, written to a file. */
function configWith(provider: Provider, upstreamIds: Record<string, string> = {}): string {
  const models = Object.fromEntries(
    Object.entries(DEFAULT_CONFIG.models).map(([name, model]) => [name, { ...model, provider: "p", upstreamId: upstreamIds[name] ?? model.upstreamId }]),
  );
  const config: FileConfig = { ...DEFAULT_CONFIG, providers: { p: provider }, models };
  const path = join(dir, `${crypto.randomUUID()}.json`);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

describe("bun run admin check-config", () => {
  test("the simulated upstream as an OpenAI-compatible provider: reachable, key accepted, every model found", async () => {
    const path = configWith({ kind: "openai-compatible", baseUrl: sim.url, apiKeyEnv: "SIM_KEY" });
    const run = await checkConfig([path], { SIM_KEY: "sk-test" });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`config ${path}: valid (1 provider, 6 models, 4 tiers)`);
    expect(run.stdout).toContain(`provider p (openai-compatible, ${sim.url}): reachable; key SIM_KEY accepted; 6 of 6 models found`);
  });

  test("as an Anthropic provider (x-api-key, paged list): the same, and a model the provider does not list is named", async () => {
    const path = configWith({ kind: "anthropic", baseUrl: sim.url, apiKeyEnv: "SIM_KEY" }, { "sim-max": "claude-not-a-model" });
    const run = await checkConfig([path], { SIM_KEY: "sk-ant-test" });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("reachable; key SIM_KEY accepted; 5 of 6 models found, not listed: claude-not-a-model");
  });

  test("a key the provider refuses", async () => {
    const path = configWith({ kind: "anthropic", baseUrl: `http://127.0.0.1:${refusing.port}`, apiKeyEnv: "SIM_KEY" });
    const run = await checkConfig([path], { SIM_KEY: "sk-ant-wrong" });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("reachable; key SIM_KEY refused (HTTP 401: invalid x-api-key)");
  });

  test.each([
    ["nothing listens there", "http://127.0.0.1:9", /unreachable \(ECONNREFUSED: connection refused\)/],
    // `.invalid` never resolves (RFC 6761): what every host looks like on a machine without network.
    ["the host does not resolve", "https://api.routelane-check.invalid", /unreachable \((ENOTFOUND|EAI_AGAIN): the host name does not resolve/],
  ])("%s: one clear unreachable line, no stack trace", async (_what, baseUrl, line) => {
    const path = configWith({ kind: "openai", baseUrl, apiKeyEnv: "OPENAI_TEST_KEY" });
    const run = await checkConfig([path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`provider p (openai, ${baseUrl}): unreachable (`);
    expect(run.stdout).toMatch(line);
    expect(run.stdout).toContain("key OPENAI_TEST_KEY is not set");
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
  });

  test("no file: the built-in config, whose simulated upstream is started for the check", async () => {
    const run = await checkConfig([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("provider sim (sim, built-in simulated upstream): reachable; no key needed; 6 of 6 models found");
  });

  test("a bad file: one line naming what is wrong, exit 2", async () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, JSON.stringify({ ...DEFAULT_CONFIG, tiers: { ...DEFAULT_CONFIG.tiers, fast: { ...DEFAULT_CONFIG.tiers.fast, models: ["nope"] } } }));
    const run = await checkConfig([path]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`config: ${path}: /tiers/fast/models/0: unknown model "nope"`);
    const missing = await checkConfig([join(dir, "missing.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read it (ENOENT)");
  });

  test.each(["anthropic", "openai", "openai-compatible"])("examples/%s.json validates, all four tiers on its provider's models, prices filled in", async (name) => {
    // Validated in process: a CLI run would call the real provider, which a test must not.
    const config = validateFileConfig(await Bun.file(join(ROOT, "examples", `${name}.json`)).json(), name);
    const [provider, ...others] = Object.keys(config.providers);
    expect(others).toEqual([]);
    expect(config.providers[provider!]!.apiKeyEnv).toMatch(/^[A-Z_]+_API_KEY$/);
    for (const tier of Object.values(config.tiers)) {
      for (const model of tier.models) expect(config.models[model]?.provider).toBe(provider!);
    }
    for (const model of Object.values(config.models)) {
      expect(model.upstreamId).not.toStartWith("sim-");
      expect(model.prices.input > 0 && model.prices.output > model.prices.input && model.prices.cacheRead < model.prices.input).toBe(true);
    }
  });
});
