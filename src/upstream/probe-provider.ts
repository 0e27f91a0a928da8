import type { ResolvedProvider } from "./resolve-providers.ts";

/** What one models call told about a provider. */
export type ProviderProbe =
  | { readonly kind: "unreachable"; readonly reason: string }
  | { readonly kind: "refused"; readonly status: number; readonly message: string | undefined }
  | { readonly kind: "failed"; readonly status: number; readonly message: string | undefined }
  | { readonly kind: "ok"; readonly modelIds: readonly string[] };

/** Pages of an Anthropic model list followed at most (1,000 ids each). */
const MAX_PAGES = 10;

function errorMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof body.error?.message === "string" ? body.error.message : undefined;
  } catch {
    return undefined;
  }
}

/** The network errors an operator meets most, in words. */
const REASONS: Readonly<Record<string, string>> = {
  ENOTFOUND: "the host name does not resolve: no network, or a wrong baseUrl",
  EAI_AGAIN: "the host name does not resolve: no network, or a wrong baseUrl",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "the connection was reset",
  ENETUNREACH: "no route to the network",
  EHOSTUNREACH: "no route to the host",
};

/** Why a request never got an answer, in a few words (Bun's error code, else the message's first line). */
function reasonOf(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "no answer in time";
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return REASONS[code] ? `${code}: ${REASONS[code]}` : code;
  return error instanceof Error ? (error.message.split("\n")[0] ?? "network error") : String(error);
}

/**
 * Calls the provider's models endpoint (`GET /v1/models`, paged for Anthropic) with the gateway's
 * own credentials, as a start-up check would: whether it answers at all, whether it takes the key,
 * and which model ids it lists. Never throws.
 */
export async function probeProvider(provider: ResolvedProvider, timeoutMs: number): Promise<ProviderProbe> {
  const anthropic = provider.kind === "anthropic";
  const headers: Record<string, string> = { ...provider.authHeaders, ...(anthropic ? { "anthropic-version": "2023-06-01" } : {}) };
  const signal = AbortSignal.timeout(timeoutMs);
  const ids: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = anthropic ? `?limit=1000${after ? `&after_id=${encodeURIComponent(after)}` : ""}` : "";
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${provider.baseUrl}/v1/models${query}`, { headers, signal });
      text = await response.text();
    } catch (error) {
      return { kind: "unreachable", reason: reasonOf(error) };
    }
    if (response.status === 401 || response.status === 403) return { kind: "refused", status: response.status, message: errorMessage(text) };
    if (!response.ok) return { kind: "failed", status: response.status, message: errorMessage(text) };
    let body: { data?: unknown; has_more?: unknown; last_id?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return { kind: "failed", status: response.status, message: "the model list is not JSON" };
    }
    if (!Array.isArray(body.data)) return { kind: "failed", status: response.status, message: "the answer holds no model list (`data`)" };
    for (const entry of body.data) {
      const id = (entry as { id?: unknown } | null)?.id;
      if (typeof id === "string") ids.push(id);
    }
    if (!anthropic || body.has_more !== true || typeof body.last_id !== "string") break;
    after = body.last_id;
  }
  return { kind: "ok", modelIds: ids };
}
