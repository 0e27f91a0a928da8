import type { Effort } from "../canonical/effort.ts";
import type { WireFormat } from "../canonical/wire-format.ts";

/** The SDKs read these for the request id of an answer. */
export const REQUEST_ID_HEADER: Readonly<Record<WireFormat, string>> = {
  messages: "request-id",
  chat: "x-request-id",
  responses: "x-request-id",
};

/** The `x-router-*` headers of a routed answer, with the request id where the SDKs read it. */
export function routerHeaders(format: WireFormat, requestId: string, tier: string, model: string, effort: Effort, source: string): Record<string, string> {
  return {
    "x-router-tier": tier,
    "x-router-model": model,
    "x-router-effort": effort,
    "x-router-source": source,
    "x-router-request-id": requestId,
    [REQUEST_ID_HEADER[format]]: requestId,
  };
}
