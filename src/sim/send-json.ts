import { resetAfter } from "./reset-after.ts";
import type { SimDirective } from "./types.ts";

/**
 * Sends a JSON body. Faults for a non-stream answer: `malformed` sends the first half of the
 * JSON as a complete (but unparsable) body; `cut` sends that half and resets the connection.
 */
export function sendJson(value: unknown, fault: SimDirective, extraHeaders: Record<string, string> = {}): Response {
  const json = JSON.stringify(value);
  const headers = { "content-type": "application/json", ...extraHeaders };
  const half = (): string => json.slice(0, Math.floor(json.length / 2));
  if (fault.cutAfterEvents !== undefined) return resetAfter(half(), headers);
  if (fault.malformedAt !== undefined) return new Response(half(), { headers });
  return new Response(json, { headers });
}
