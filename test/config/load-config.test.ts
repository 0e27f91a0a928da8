import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/load-config.ts";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";

const dir = mkdtempSync(join(tmpdir(), "routelane-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(value: unknown): string {
  const path = join(dir, `${crypto.randomUUID()}.json`);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  test("defaults: port 8787 on 127.0.0.1, PGlite in ./data, 32 MiB bodies, simulated models for every tier", () => {
    const config = loadConfig({});
    expect(config.port).toBe(8787);
    expect(config.host).toBe("127.0.0.1");
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toBe("./data");
    expect(config.bodyLimitBytes).toBe(32 * 1024 * 1024);
    expect(config.adminToken).toBeUndefined();
    for (const tier of Object.values(config.tiers)) {
      for (const model of tier.models) expect(config.providers[config.models[model]!.provider]!.kind).toBe("sim");
    }
    expect(Object.isFrozen(config.tiers.normal.models)).toBe(true);
  });

  test("the response cache keeps 64 MiB in process, 16 MiB with Redis (whose second level holds every answer); a configured budget wins either way", () => {
    expect(loadConfig({}).responseCache.maxBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ REDIS_URL: "redis://r:6379" }).responseCache.maxBytes).toBe(16 * 1024 * 1024);
    const path = fileWith({ ...DEFAULT_CONFIG, responseCache: { maxBytes: 1_000_000 } });
    expect(loadConfig({ ROUTELANE_CONFIG: path, REDIS_URL: "redis://r:6379" }).responseCache.maxBytes).toBe(1_000_000);
    expect(loadConfig({ ROUTELANE_CONFIG: path }).responseCache.maxBytes).toBe(1_000_000);
  });

  test("environment values are read", () => {
    const config = loadConfig({
      PORT: "9000",
      HOST: "0.0.0.0",
      DATABASE_URL: "postgres://u@db:5432/x",
      REDIS_URL: "redis://r:6379",
      ROUTELANE_DATA_DIR: "/tmp/d",
      ROUTELANE_ADMIN_TOKEN: "0123456789abcdef",
    });
    expect([config.port, config.host, config.databaseUrl, config.redisUrl, config.dataDir, config.adminToken]).toEqual([
      9000,
      "0.0.0.0",
      "postgres://u@db:5432/x",
      "redis://r:6379",
      "/tmp/d",
      "0123456789abcdef",
    ]);
  });

  const tierWithUnknownModel = structuredClone(DEFAULT_CONFIG);
  tierWithUnknownModel.tiers.smart.models = ["sim-smart", "nope"];
  const badEffort = structuredClone(DEFAULT_CONFIG) as unknown as { tiers: { fast: { defaultEffort: string } } };
  badEffort.tiers.fast.defaultEffort = "extreme";
  const unknownProvider = structuredClone(DEFAULT_CONFIG);
  unknownProvider.models["sim-fast"]!.provider = "elsewhere";
  const missingTier = structuredClone(DEFAULT_CONFIG) as unknown as { tiers: Record<string, unknown> };
  delete missingTier.tiers["smart-plus"];
  const keyEnv = structuredClone(DEFAULT_CONFIG);
  keyEnv.providers.anthropic = { kind: "anthropic", apiKeyEnv: "ANTHROPIC_KEY_FOR_TEST" };

  test.each([
    [{ PORT: "eighty" }, 'PORT: expected an integer from 0 to 65535, got "eighty"'],
    [{ PORT: "70000" }, "PORT: expected an integer from 0 to 65535"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL: expected a postgres:// or postgresql:// URL"],
    [{ DATABASE_URL: "not a url" }, "DATABASE_URL: expected a postgres:// or postgresql:// URL"],
    [{ DATABASE_URL: "postgres://[broken" }, "DATABASE_URL: expected a postgres:// or postgresql:// URL"],
    [{ HOST: "two words" }, 'HOST: expected a host name or address, got "two words"'],
    [{ REDIS_URL: "http://x" }, "REDIS_URL: expected a redis://"],
    [{ ROUTELANE_ADMIN_TOKEN: "short" }, "ROUTELANE_ADMIN_TOKEN: expected at least 16 characters"],
    [{ ROUTELANE_CONFIG: "/nonexistent/config.json" }, "ROUTELANE_CONFIG: cannot read /nonexistent/config.json (ENOENT)"],
    [{ ROUTELANE_CONFIG: fileWith("{oops") }, "is not valid JSON"],
    [{ ROUTELANE_CONFIG: fileWith(tierWithUnknownModel) }, '/tiers/smart/models/1: unknown model "nope"'],
    [{ ROUTELANE_CONFIG: fileWith(badEffort) }, "/tiers/fast/defaultEffort"],
    [{ ROUTELANE_CONFIG: fileWith(unknownProvider) }, '/models/sim-fast/provider: unknown provider "elsewhere"'],
    [{ ROUTELANE_CONFIG: fileWith(missingTier) }, "/tiers/smart-plus"],
    [{ ROUTELANE_CONFIG: fileWith(keyEnv) }, 'ANTHROPIC_KEY_FOR_TEST: not set (API key of provider "anthropic")'],
  ])("%p → one line naming the setting", (env, expected) => {
    const message = messageOf(env as Record<string, string>);
    expect(message).toContain(expected);
    expect(message).not.toContain("\n");
  });

  test("a bad URL or token is never quoted back: it may hold a password", () => {
    expect(messageOf({ DATABASE_URL: "mysql://user:hunter2@db/x" })).not.toContain("hunter2");
    expect(messageOf({ REDIS_URL: "http://:hunter2@r" })).not.toContain("hunter2");
    expect(messageOf({ ROUTELANE_ADMIN_TOKEN: "hunter2" })).not.toContain("hunter2");
  });

  test("empty variables count as unset", () => {
    const config = loadConfig({ PORT: "", DATABASE_URL: "", ROUTELANE_ADMIN_TOKEN: "" });
    expect([config.port, config.databaseUrl, config.adminToken]).toEqual([8787, undefined, undefined]);
  });
});

describe("examples/config.json", () => {
  test("is a complete, valid config equal to the built-in default", () => {
    const path = join(import.meta.dir, "..", "..", "examples", "config.json");
    const config = loadConfig({ ROUTELANE_CONFIG: path });
    expect(config.configPath).toBe(path);
    expect({ providers: config.providers, models: config.models, tiers: config.tiers }).toEqual({
      providers: DEFAULT_CONFIG.providers,
      models: DEFAULT_CONFIG.models,
      tiers: DEFAULT_CONFIG.tiers,
    });
    expect([config.bodyLimitBytes, config.keyCacheTtlMs, config.upstreamTimeoutMs, config.trustProxy]).toEqual([33554432, 60000, 120000, false]);
    const builtIn = loadConfig({});
    const streams = (c: typeof config) => [c.streamKeepaliveMs, c.streamIdleTimeoutMs, c.maxUpstreamBodyBytes, c.maxUpstreamEventBytes];
    expect(streams(config)).toEqual([15_000, 300_000, 64 * 1024 * 1024, 64 * 1024 * 1024]);
    expect(streams(builtIn)).toEqual(streams(config));
  });
});
