import { DatabaseFailure } from "../db/sanitize-db-error.ts";
import { GatewayError, fail } from "../canonical/gateway-error.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { wireApi } from "../wire/wire-apis.ts";

/** Anything thrown that is not a GatewayError is a bug: log it (never a body or key) and answer 500. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  // Keys are checked against the database on a cache miss; while it is away, nobody is let in.
  if (error instanceof DatabaseFailure) {
    return fail("StoreUnavailable", "the account store is unavailable; try again shortly", { headers: { "retry-after": "1" } });
  }
  console.error(JSON.stringify({ level: "error", msg: "unhandled error", error: error instanceof Error ? error.stack : String(error) }));
  return fail("Internal", "internal error");
}

/** Renders an error in the body shape of the format that was called. */
export function renderError(
  error: unknown,
  format: WireFormat,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  const gatewayError = toGatewayError(error);
  const api = wireApi(format);
  return new Response(api.encodeError(gatewayError, requestId), {
    status: api.errorStatus(gatewayError.status),
    headers: {
      "content-type": "application/json",
      "x-router-request-id": requestId,
      ...headers,
      ...gatewayError.headers,
    },
  });
}

/** The models endpoints and unknown paths have no format of their own: Messages shape when the caller speaks it. */
export function formatOfHeaders(headers: Headers): WireFormat {
  return headers.has("anthropic-version") ? "messages" : "chat";
}
