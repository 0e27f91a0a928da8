import { type GatewayError, fail } from "../canonical/gateway-error.ts";
import { readRetryAfter } from "./read-retry-after.ts";
import { isJsonObject } from "../canonical/json-object.ts";

/** The message inside an upstream error body of either shape (Messages or OpenAI), if there is one. */
export function upstreamErrorMessage(body: unknown): string | undefined {
  if (!isJsonObject(body)) return undefined;
  const error = isJsonObject(body.error) ? body.error : body;
  return typeof error.message === "string" && error.message !== "" ? error.message : undefined;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The upstream statuses worth calling the same model again for, after a pause. */
const TRANSIENT = new Set([408, 429, 500, 502, 503, 504, 529]);

/**
 * Maps an upstream failure onto the gateway's error. The caller's own key was fine, so upstream
 * authentication failures are the gateway's problem (502), never the caller's 401/403.
 * `retryable` says whether another candidate model may succeed, `transient` whether the same one
 * may after a pause (as long as `retry-after-ms` / `retry-after` in `upstreamHeaders` asks).
 */
export function classifyUpstreamError(status: number, bodyText: string, upstreamHeaders: Headers | null): GatewayError {
  const message = upstreamErrorMessage(parse(bodyText));
  const detail = message ? `: ${message}` : "";
  const retryAfter = upstreamHeaders?.get("retry-after");
  const headers: Record<string, string> = retryAfter ? { "retry-after": retryAfter } : {};
  const transient = TRANSIENT.has(status);
  const retryAfterMs = transient ? readRetryAfter(upstreamHeaders) : undefined;
  if (status === 400 || status === 422) return fail("UpstreamRejected", message ?? "upstream rejected the request");
  if (status === 401 || status === 403) return fail("UpstreamAuthRefused", `upstream refused the gateway's credentials (${status})`);
  if (status === 404) return fail("UpstreamNotFound", `upstream: not found${detail}`);
  if (status === 413) return fail("TooLarge", message ?? "request too large for the upstream");
  if (status === 429) return fail("UpstreamRateLimited", `upstream rate limit${detail}`, { retryAfterMs, headers });
  if (status === 408 || status === 504) return fail("UpstreamTimeout", `upstream timed out${detail}`, { retryAfterMs });
  if (status === 529 || status === 503) return fail("UpstreamOverloaded", `upstream overloaded${detail}`, { retryAfterMs, headers });
  return fail("UpstreamFailed", `upstream error ${status}${detail}`, { retryAfterMs, transient });
}
