import { waitFor } from "../canonical/wait-for.ts";
import type { SimDirective } from "./types.ts";

/**
 * The faults that act before the first byte: the delay (abandoned when the client leaves) and
 * the error status. Returns the response to send instead of an answer, or null to go on.
 */
export async function applyLeadingFault(
  fault: SimDirective,
  signal: AbortSignal,
  renderError: (status: number, message: string | undefined) => Response,
): Promise<Response | null> {
  if (fault.delayMs !== undefined && fault.delayMs > 0) {
    const waited = await waitFor(fault.delayMs, signal);
    // The client is gone; nobody reads this, it only ends the handler.
    if (!waited) return new Response(null, { status: 499 });
  }
  if (fault.status === undefined) return null;
  const response = renderError(fault.status, fault.message);
  if (fault.retryAfter !== undefined) response.headers.set("retry-after", fault.retryAfter);
  if (fault.retryAfterMs !== undefined) response.headers.set("retry-after-ms", String(fault.retryAfterMs));
  return response;
}
