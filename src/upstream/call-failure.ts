import { GatewayError } from "../canonical/gateway-error.ts";
import type { AbortCause } from "./create-call-guard.ts";

/**
 * Why an upstream call failed before anything was committed: the client left (499, never retried),
 * the deadline passed, or the network failed (both worth another model).
 */
export function callFailure(error: unknown, timeoutMs: number, cause: AbortCause | undefined): GatewayError {
  if (error instanceof GatewayError) return error;
  if (cause === "client") return new GatewayError(499, "api_error", "client closed the request");
  if (cause === "deadline") return new GatewayError(504, "timeout_error", `upstream did not answer within ${timeoutMs} ms`, { retryable: true, transient: true });
  const reason = error instanceof Error ? error.message : String(error);
  return new GatewayError(502, "api_error", `upstream unreachable: ${reason}`, { retryable: true, transient: true });
}
