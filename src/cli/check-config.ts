import { readFileSync } from "node:fs";
import { DEFAULT_CONFIG } from "../config/default-config.ts";
import { ConfigError, validateFileConfig } from "../config/load-config.ts";
import type { FileConfig } from "../config/schema.ts";
import { startSim, type SimServer } from "../sim/start-sim.ts";
import { probeProvider, type ProviderProbe } from "../upstream/probe-provider.ts";
import { resolveProviders } from "../upstream/resolve-providers.ts";

interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** How long one provider may take to answer its models call. */
const PROBE_TIMEOUT_MS = 10_000;

/** The config file, validated as start-up validates it; a ConfigError names what is wrong. */
function readConfig(path: string | undefined): { config: FileConfig; origin: string } {
  if (path === undefined) return { config: DEFAULT_CONFIG, origin: "built-in config" };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  return { config: validateFileConfig(json, path), origin: path };
}

/** One provider's line: reachable, key accepted, configured models found. */
function describe(probe: ProviderProbe, keyEnv: string | undefined, keySet: boolean, wanted: readonly string[]): { line: string; ok: boolean } {
  const key = keyEnv === undefined ? "no key configured" : keySet ? `key ${keyEnv}` : `key ${keyEnv} is not set`;
  if (probe.kind === "unreachable") return { line: `unreachable (${probe.reason})${keyEnv !== undefined && !keySet ? `; ${key}` : ""}`, ok: false };
  if (probe.kind === "refused") return { line: `reachable; ${key} refused (HTTP ${probe.status}${probe.message ? `: ${probe.message}` : ""})`, ok: false };
  if (probe.kind === "failed") return { line: `reachable; the models call answered HTTP ${probe.status}${probe.message ? `: ${probe.message}` : ""}`, ok: false };
  const listed = new Set(probe.modelIds);
  const missing = wanted.filter((id) => !listed.has(id));
  const found = `${wanted.length - missing.length} of ${wanted.length} models found`;
  const models = missing.length === 0 ? found : `${found}, not listed: ${missing.join(", ")}`;
  const keyPart = keyEnv === undefined ? "no key needed" : keySet ? `${key} accepted` : `${key}, and none was needed`;
  return { line: `reachable; ${keyPart}; ${models}`, ok: missing.length === 0 && (keyEnv === undefined || keySet) };
}

/**
 * `bun run admin check-config [file]`: validates a config file (default: $ROUTELANE_CONFIG, else
 * the built-in one) as start-up does, then calls each provider's models endpoint with its key and
 * reports, one line per provider, whether it is reachable, takes the key and lists the configured
 * model ids. Exit 0 when all is well, 1 when a provider is not, 2 when the file itself is bad.
 */
export async function runCheckConfig(path: string | undefined, env: Record<string, string | undefined>, io: Io): Promise<number> {
  let loaded: { config: FileConfig; origin: string };
  try {
    loaded = readConfig(path ?? (env.ROUTELANE_CONFIG || undefined));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`config: ${error.message}`);
    return 2;
  }
  const { config, origin } = loaded;
  const names = Object.keys(config.providers);
  io.out(`config ${origin}: valid (${names.length} provider${names.length === 1 ? "" : "s"}, ${Object.keys(config.models).length} models, 4 tiers)`);
  let sim: SimServer | undefined;
  try {
    if (Object.values(config.providers).some((p) => p.kind === "sim" && !p.baseUrl)) sim = await startSim({ port: 0 });
    let resolved: ReturnType<typeof resolveProviders>;
    try {
      resolved = resolveProviders(config, env, sim?.url);
    } catch (error) {
      io.err(`config ${origin}: ${(error as Error).message}`);
      return 2;
    }
    const probes = await Promise.all(names.map((name) => probeProvider(resolved[name]!, PROBE_TIMEOUT_MS)));
    let ok = true;
    for (const [i, name] of names.entries()) {
      const provider = config.providers[name]!;
      const wanted = [...new Set(Object.values(config.models).filter((m) => m.provider === name).map((m) => m.upstreamId))];
      const keyEnv = provider.apiKeyEnv;
      const where = provider.kind === "sim" && !provider.baseUrl ? "built-in simulated upstream" : resolved[name]!.baseUrl;
      const result = describe(probes[i]!, keyEnv, keyEnv !== undefined && !!env[keyEnv], wanted);
      ok &&= result.ok;
      io.out(`provider ${name} (${provider.kind}, ${where}): ${result.line}`);
    }
    return ok ? 0 : 1;
  } finally {
    await sim?.stop();
  }
}
