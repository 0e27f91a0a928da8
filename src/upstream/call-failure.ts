import { GatewayError, fail } from "../canonical/gateway-error.ts";
import type { AbortCause } from "./create-call-guard.ts";

/**
 * Why an upstream call failed before anything was committed: the client left (499, never retried),
 * the deadline passed, or the network failed (both worth another model).
 */
export function callFailure(error: unknown, timeoutMs: number, cause: AbortCause | undefined): GatewayError {
  if (error instanceof GatewayError) return error;
  if (cause === "client") return fail("ClientClosed", "client closed the request");
  if (cause === "deadline") return fail("UpstreamTimeout", `upstream did not answer within ${timeoutMs} ms`);
  const reason = error instanceof Error ? error.message : String(error);
  return fail("UpstreamUnreachable", `upstream unreachable: ${reason}`);
}
