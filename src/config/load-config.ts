import { Value } from "@sinclair/typebox/value";
import { readFileSync } from "node:fs";
import { DEFAULT_CONFIG } from "./default-config.ts";
import { FileConfigSchema, type Config, type FileConfig } from "./schema.ts";

/** A bad setting. Start-up prints `message` as one line and exits. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

type Env = Record<string, string | undefined>;

const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;
const DEFAULT_KEY_CACHE_TTL_MS = 60_000;
const DEFAULT_UPSTREAM_TIMEOUT_MS = 120_000;

function parsePort(env: Env): number {
  const raw = env.PORT;
  if (raw === undefined || raw === "") return 8787;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT: expected an integer from 0 to 65535, got "${raw}"`);
  }
  return port;
}

function parseUrl(name: string, raw: string | undefined, protocols: readonly string[]): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name}: not a valid URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name}: expected a ${protocols.map((p) => p.replace(":", "://")).join(" or ")} URL, got ${url.protocol}//…`);
  }
  return raw;
}

function readFileConfig(path: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`ROUTELANE_CONFIG: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`ROUTELANE_CONFIG: ${path} is not valid JSON (${(err as Error).message})`);
  }
  return validateFileConfig(json, `ROUTELANE_CONFIG ${path}`);
}

/** Validates a config-file value: shape first, then the references between its parts. */
export function validateFileConfig(value: unknown, origin: string): FileConfig {
  const first = Value.Errors(FileConfigSchema, value).First();
  if (first) {
    const at = first.path === "" ? "(root)" : first.path;
    throw new ConfigError(`${origin}: ${at}: ${first.message}`);
  }
  const config = value as FileConfig;
  for (const [name, model] of Object.entries(config.models)) {
    if (!config.providers[model.provider]) {
      throw new ConfigError(`${origin}: /models/${name}/provider: unknown provider "${model.provider}"`);
    }
  }
  for (const [tier, tierConfig] of Object.entries(config.tiers)) {
    for (const [i, modelName] of tierConfig.models.entries()) {
      if (!config.models[modelName]) {
        throw new ConfigError(`${origin}: /tiers/${tier}/models/${i}: unknown model "${modelName}"`);
      }
    }
  }
  return config;
}

function checkProviderKeys(config: FileConfig, env: Env, origin: string): void {
  for (const [name, provider] of Object.entries(config.providers)) {
    if (provider.kind !== "sim" && !provider.baseUrl && provider.kind === "openai-compatible") {
      throw new ConfigError(`${origin}: /providers/${name}/baseUrl: required for kind openai-compatible`);
    }
    if (provider.apiKeyEnv && !env[provider.apiKeyEnv]) {
      throw new ConfigError(`${provider.apiKeyEnv}: not set (API key of provider "${name}")`);
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Reads the environment and the config file into one frozen, validated Config. */
export function loadConfig(env: Env = process.env): Config {
  const configPath = env.ROUTELANE_CONFIG || undefined;
  const file = configPath ? readFileConfig(configPath) : structuredClone(DEFAULT_CONFIG);
  checkProviderKeys(file, env, configPath ? `ROUTELANE_CONFIG ${configPath}` : "built-in config");
  const adminToken = env.ROUTELANE_ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError("ROUTELANE_ADMIN_TOKEN: must be at least 16 characters");
  }
  return deepFreeze({
    port: parsePort(env),
    host: env.HOST || "127.0.0.1",
    databaseUrl: parseUrl("DATABASE_URL", env.DATABASE_URL, ["postgres:", "postgresql:"]),
    dataDir: env.ROUTELANE_DATA_DIR || "./data",
    redisUrl: parseUrl("REDIS_URL", env.REDIS_URL, ["redis:", "rediss:", "valkey:", "valkeys:"]),
    adminToken,
    configPath,
    bodyLimitBytes: file.server?.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
    keyCacheTtlMs: file.server?.keyCacheTtlMs ?? DEFAULT_KEY_CACHE_TTL_MS,
    upstreamTimeoutMs: file.server?.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    providers: file.providers,
    models: file.models,
    tiers: file.tiers,
  });
}
