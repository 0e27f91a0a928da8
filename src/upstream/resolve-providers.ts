import type { Config, Provider } from "../config/schema.ts";

/** A provider ready to call: where it is and the headers that authenticate the gateway to it. */
export interface ResolvedProvider {
  readonly name: string;
  readonly kind: Provider["kind"];
  readonly baseUrl: string;
  readonly authHeaders: Readonly<Record<string, string>>;
}

const DEFAULT_BASE_URLS: Partial<Record<Provider["kind"], string>> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com",
};

function authHeaders(provider: Provider, env: Record<string, string | undefined>): Record<string, string> {
  const key = provider.apiKeyEnv ? env[provider.apiKeyEnv] : undefined;
  if (!key) return {};
  return provider.kind === "anthropic" ? { "x-api-key": key } : { authorization: `Bearer ${key}` };
}

/**
 * Resolves every configured provider. `baseUrl` is the root the `/v1/...` paths are appended to;
 * a `sim` provider without one points at the in-process simulated upstream (`simUrl`).
 */
export function resolveProviders(
  config: Pick<Config, "providers">,
  env: Record<string, string | undefined>,
  simUrl: string | undefined,
): Record<string, ResolvedProvider> {
  const resolved: Record<string, ResolvedProvider> = {};
  for (const [name, provider] of Object.entries(config.providers)) {
    const baseUrl = provider.baseUrl ?? (provider.kind === "sim" ? simUrl : DEFAULT_BASE_URLS[provider.kind]);
    if (!baseUrl) throw new Error(`provider "${name}" has no base URL`);
    resolved[name] = { name, kind: provider.kind, baseUrl: baseUrl.replace(/\/+$/, ""), authHeaders: authHeaders(provider, env) };
  }
  return resolved;
}

/** Whether any provider needs the in-process simulated upstream. */
export function needsInProcessSim(config: Config): boolean {
  return Object.values(config.providers).some((p) => p.kind === "sim" && !p.baseUrl);
}
