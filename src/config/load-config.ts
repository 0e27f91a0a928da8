import { Value } from "@sinclair/typebox/value";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CONFIG, DEFAULT_ROUTING } from "./default-config.ts";
import { ENV_NAMES, EnvSchema, type EnvSettings } from "./env-schema.ts";
import { FileConfigSchema, type Config, type FileConfig, type RetryPolicy, type RoutingConfig, type SmartPlusConfig } from "./schema.ts";

/** A bad setting. Start-up prints `message` as one line and exits. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

type Env = Record<string, string | undefined>;

const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;
const DEFAULT_KEY_CACHE_TTL_MS = 60_000;
const DEFAULT_UPSTREAM_TIMEOUT_MS = 120_000;
/** Thousands of streams per instance (LLM streams last minutes); each holds two sockets. */
const DEFAULT_MAX_UPSTREAM_REQUESTS = 16_384;
/** A few coding agents' conversations of a megabyte or more: about 6 bytes of memory a byte of text kept, so at most about 50 MB. */
const PARSE_MEMO_MAX_CHARS = 8 * 1024 * 1024;
/** Two retries per request, begun within 15 s, backing off 0.5 s, 1 s, … up to 8 s. */
const DEFAULT_RETRIES: RetryPolicy = { attempts: 2, budgetMs: 15_000, baseDelayMs: 500, maxDelayMs: 8_000 };
/** Below the idle timeouts of common proxies and load balancers (30–60 s). */
const DEFAULT_STREAM_KEEPALIVE_MS = 15_000;
/** Reasoning models think for minutes; an upstream silent for longer is gone. */
const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;
/** Room for an answer of several base64 images (a 1536×1024 PNG is about 4 MB of base64). */
const DEFAULT_MAX_UPSTREAM_BYTES = 64 * 1024 * 1024;
/**
 * The response cache's in-process budget. Without Redis it holds the only copy of each answer; with
 * Redis every answer is in the shared second level too, and what the process keeps is only what
 * saves a round trip, so it keeps a quarter as much. A full layer costs about 3½ MB of RSS a MB of
 * budget (the collector lets the heap grow to twice what it keeps): three-minute soaks of new
 * conversations on Postgres + Redis held 183-190 MB at 16 MiB, 277-334 MB at 64 MiB.
 */
const DEFAULT_RESPONSE_CACHE_BYTES = 64 * 1024 * 1024;
const DEFAULT_RESPONSE_CACHE_BYTES_WITH_REDIS = 16 * 1024 * 1024;

/** What the value of a setting had to be, and the value itself when it is safe to show. */
function badSetting(name: keyof EnvSettings, value: string): ConfigError {
  const schema = EnvSchema.properties[name] as unknown as { description: string; echo?: boolean };
  return new ConfigError(`${name}: expected ${schema.description}${schema.echo ? `, got "${value}"` : ""}`);
}

/** The gateway's own variables, empty ones counted as unset, checked against EnvSchema. */
function readEnv(env: Env): EnvSettings {
  const settings: Record<string, string> = {};
  for (const name of ENV_NAMES) {
    const value = env[name];
    if (value !== undefined && value !== "") settings[name] = value;
  }
  const first = Value.Errors(EnvSchema, settings).First();
  if (first) {
    const name = first.path.slice(1) as keyof EnvSettings;
    throw badSetting(name, settings[name] ?? "");
  }
  const checked = settings as EnvSettings;
  // What a pattern cannot say: the port's range, and that a URL actually parses.
  if (checked.PORT !== undefined && Number(checked.PORT) > 65535) throw badSetting("PORT", checked.PORT);
  for (const name of ["DATABASE_URL", "REDIS_URL"] as const) {
    const url = checked[name];
    if (url !== undefined && !URL.canParse(url)) throw badSetting(name, url);
  }
  return checked;
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
  if (config.routing) checkRouting(config, origin);
  return config;
}

function checkPatterns(patterns: readonly string[] | undefined, at: string): void {
  for (const [i, pattern] of (patterns ?? []).entries()) {
    try {
      new RegExp(pattern, "i");
    } catch (err) {
      throw new ConfigError(`${at}/${i}: not a valid regular expression (${(err as Error).message})`);
    }
  }
}

/** What the routing schema cannot say: classes and models that rules name exist, patterns compile. */
function checkRouting(config: FileConfig, origin: string): void {
  const routing = { ...DEFAULT_ROUTING, ...config.routing };
  for (const [i, rule] of routing.rules.entries()) {
    const at = `${origin}: /routing/rules/${i}`;
    if (!routing.classes[rule.class]) throw new ConfigError(`${at}/class: unknown class "${rule.class}"`);
    checkPatterns(rule.when.patterns, `${at}/when/patterns`);
    for (const [tier, choice] of Object.entries(rule.tiers ?? {})) {
      const pool = config.tiers[tier as keyof FileConfig["tiers"]].models;
      if (choice?.model !== undefined && !pool.includes(choice.model)) {
        throw new ConfigError(`${at}/tiers/${tier}/model: "${choice.model}" is not in the pool of tier ${tier}`);
      }
    }
  }
  for (const [name, taskClass] of Object.entries(routing.classes)) {
    for (const [i, model] of (taskClass.prefer ?? []).entries()) {
      if (!config.models[model]) throw new ConfigError(`${origin}: /routing/classes/${name}/prefer/${i}: unknown model "${model}"`);
    }
  }
  checkPatterns(routing.escalation.strugglePatterns, `${origin}: /routing/escalation/strugglePatterns`);
  checkPatterns(routing.escalation.successPatterns, `${origin}: /routing/escalation/successPatterns`);
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
  const settings = readEnv(env);
  const configPath = settings.ROUTELANE_CONFIG;
  const file = configPath ? readFileConfig(configPath) : structuredClone(DEFAULT_CONFIG);
  checkProviderKeys(file, env, configPath ? `ROUTELANE_CONFIG ${configPath}` : "built-in config");
  return deepFreeze({
    port: settings.PORT === undefined ? 8787 : Number(settings.PORT),
    host: settings.HOST ?? "127.0.0.1",
    databaseUrl: settings.DATABASE_URL,
    dataDir: settings.ROUTELANE_DATA_DIR ?? "./data",
    redisUrl: settings.REDIS_URL,
    adminToken: settings.ROUTELANE_ADMIN_TOKEN,
    configPath,
    bodyLimitBytes: file.server?.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
    keyCacheTtlMs: file.server?.keyCacheTtlMs ?? DEFAULT_KEY_CACHE_TTL_MS,
    upstreamTimeoutMs: file.server?.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    retries: { ...DEFAULT_RETRIES, ...file.server?.retries },
    trustProxy: file.server?.trustProxy ?? false,
    streamKeepaliveMs: file.server?.streamKeepaliveMs ?? DEFAULT_STREAM_KEEPALIVE_MS,
    streamIdleTimeoutMs: file.server?.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
    maxUpstreamBodyBytes: file.server?.maxUpstreamBodyBytes ?? DEFAULT_MAX_UPSTREAM_BYTES,
    maxUpstreamEventBytes: file.server?.maxUpstreamEventBytes ?? DEFAULT_MAX_UPSTREAM_BYTES,
    maxUpstreamRequests: file.server?.maxUpstreamRequests ?? DEFAULT_MAX_UPSTREAM_REQUESTS,
    parseMemoChars: file.server?.parseMemoChars ?? PARSE_MEMO_MAX_CHARS,
    providers: file.providers,
    models: file.models,
    tiers: file.tiers,
    responseCache: {
      enabled: file.responseCache?.enabled ?? true,
      maxBytes: file.responseCache?.maxBytes ?? (settings.REDIS_URL ? DEFAULT_RESPONSE_CACHE_BYTES_WITH_REDIS : DEFAULT_RESPONSE_CACHE_BYTES),
      ttlMs: file.responseCache?.ttlMs ?? 600_000,
      shards: file.responseCache?.shards ?? 16,
    },
    usage: {
      // On PGlite a batch holds the database for its whole run (500 rows: about 6 ms, during which a
      // key lookup waits); 200 rows take about 2 ms at no more CPU per row.
      batchRows: file.usage?.batchRows ?? 200,
      flushIntervalMs: file.usage?.flushIntervalMs ?? 1_000,
      maxBufferRows: file.usage?.maxBufferRows ?? 100_000,
    },
    redis: {
      keyPrefix: file.redis?.keyPrefix ?? "routelane:",
      leaseTtlMs: file.redis?.leaseTtlMs ?? 30_000,
      commandTimeoutMs: file.redis?.commandTimeoutMs ?? 250,
      backoffMs: file.redis?.backoffMs ?? 500,
    },
    routing: { ...DEFAULT_ROUTING, ...file.routing } satisfies RoutingConfig,
    smartPlus: readSmartPlus(file, settings.ROUTELANE_DATA_DIR ?? "./data"),
  });
}

const HOUR_MS = 3_600_000;
const MIB = 1024 * 1024;

function readSmartPlus(file: FileConfig, dataDir: string): SmartPlusConfig {
  const sp = file.smartPlus ?? {};
  return {
    tokenTtlMs: sp.tokenTtlMs ?? 24 * HOUR_MS,
    jobTtlMs: sp.jobTtlMs ?? 24 * HOUR_MS,
    uploadLimitBytes: sp.uploadLimitBytes ?? 200 * MIB,
    maxFiles: sp.maxFiles ?? 50_000,
    maxFileBytes: sp.maxFileBytes ?? 20 * MIB,
    maxTotalBytes: sp.maxTotalBytes ?? 1024 * MIB,
    leaseTimeoutMs: sp.leaseTimeoutMs ?? 60_000,
    pollIntervalMs: sp.pollIntervalMs ?? 1_000,
    turnWaitMs: sp.turnWaitMs ?? 20_000,
    retries: sp.retries ?? 2,
    blobDir: sp.blobDir ?? join(dataDir, "smartplus"),
    publicUrl: sp.publicUrl?.replace(/\/+$/, ""),
    worker: sp.worker ?? true,
  };
}

/** Operational settings (logging, metrics, shutdown); validated by loadConfig with the rest of the environment. */
export interface OpsSettings {
  readonly logLevel: string;
  /** `stdout`, `stderr` or a file path. */
  readonly logDestination: string;
  /** Log request bodies (keys and job tokens redacted); for debugging only. */
  readonly logBodies: boolean;
  readonly metricsToken: string | undefined;
  /** How long in-flight requests and streams may run on after SIGTERM. */
  readonly shutdownTimeoutMs: number;
  /** Traces are exported over OTLP/HTTP only when this standard variable is set. */
  readonly otlpEndpoint: string | undefined;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 25_000;

export function loadOpsSettings(env: Env = process.env): OpsSettings {
  const settings = readEnv(env);
  return {
    logLevel: settings.ROUTELANE_LOG_LEVEL ?? "info",
    logDestination: settings.ROUTELANE_LOG_DESTINATION ?? "stdout",
    logBodies: settings.ROUTELANE_LOG_BODIES === "1" || settings.ROUTELANE_LOG_BODIES === "true",
    metricsToken: settings.ROUTELANE_METRICS_TOKEN,
    shutdownTimeoutMs: settings.ROUTELANE_SHUTDOWN_TIMEOUT_MS === undefined ? DEFAULT_SHUTDOWN_TIMEOUT_MS : Number(settings.ROUTELANE_SHUTDOWN_TIMEOUT_MS),
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
  };
}
