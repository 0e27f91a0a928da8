import type { Effort } from "../canonical/effort.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { wireApi } from "../wire/wire-apis.ts";

/** The `x-router-*` headers of a routed answer, with the request id where the SDKs read it. */
export function routerHeaders(format: WireFormat, requestId: string, tier: string, model: string, effort: Effort, source: string): Record<string, string> {
  return {
    "x-router-tier": tier,
    "x-router-model": model,
    "x-router-effort": effort,
    "x-router-source": source,
    "x-router-request-id": requestId,
    [wireApi(format).requestIdHeader]: requestId,
  };
}
