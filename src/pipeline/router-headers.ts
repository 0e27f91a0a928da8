import type { Effort } from "../canonical/effort.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { wireApi } from "../wire/wire-apis.ts";

/**
 * The `x-router-*` headers of a routed answer, with the request id where the SDKs read it. Without
 * a model (none was called: every breaker of the tier was open), no model and no effort are named.
 */
export function routerHeaders(format: WireFormat, requestId: string, tier: string, model: string | undefined, effort: Effort | undefined, source: string): Record<string, string> {
  const headers: Record<string, string> = { "x-router-tier": tier };
  if (model !== undefined) headers["x-router-model"] = model;
  if (effort !== undefined) headers["x-router-effort"] = effort;
  headers["x-router-source"] = source;
  headers["x-router-request-id"] = requestId;
  headers[wireApi(format).requestIdHeader] = requestId;
  return headers;
}
