import type { WireFormat } from "../../canonical/wire-format.ts";
import type { ResolvedProvider } from "../resolve-providers.ts";

const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/**
 * Headers for the upstream call: the provider's credentials (never the caller's key), the
 * format's version and beta headers from the client, and the simulated upstream's fault header.
 */
export function buildForwardHeaders(
  format: WireFormat,
  clientHeaders: Headers,
  provider: ResolvedProvider,
  stream: boolean,
): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json", ...provider.authHeaders };
  if (stream) headers.accept = "text/event-stream";
  if (format === "messages") {
    headers["anthropic-version"] = clientHeaders.get("anthropic-version") || DEFAULT_ANTHROPIC_VERSION;
    const beta = clientHeaders.get("anthropic-beta");
    if (beta) headers["anthropic-beta"] = beta;
  } else {
    const beta = clientHeaders.get("openai-beta");
    if (beta) headers["openai-beta"] = beta;
  }
  if (provider.kind === "sim") {
    const fault = clientHeaders.get("x-sim-fault");
    if (fault) headers["x-sim-fault"] = fault;
  }
  return headers;
}
