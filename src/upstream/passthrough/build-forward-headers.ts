import type { WireApi } from "../../wire/wire-api.ts";
import type { ResolvedProvider } from "../resolve-providers.ts";

/**
 * Headers for the upstream call: the provider's credentials (never the caller's key), the API's
 * version and beta headers from the client, and the simulated upstream's fault header.
 */
export function buildForwardHeaders(api: WireApi, clientHeaders: Headers, provider: ResolvedProvider, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", ...provider.authHeaders };
  if (stream) headers.accept = "text/event-stream";
  Object.assign(headers, api.versionHeaders(clientHeaders));
  if (provider.kind === "sim") {
    const fault = clientHeaders.get("x-sim-fault");
    if (fault) headers["x-sim-fault"] = fault;
  }
  return headers;
}
