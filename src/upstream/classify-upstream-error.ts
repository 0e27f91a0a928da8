import { GatewayError } from "../canonical/gateway-error.ts";
import { isJsonObject } from "./effort-result.ts";

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

/**
 * Maps an upstream failure onto the gateway's error. The caller's own key was fine, so upstream
 * authentication failures are the gateway's problem (502), never the caller's 401/403.
 * `retryable` says whether another candidate model may succeed.
 */
export function classifyUpstreamError(status: number, bodyText: string, retryAfter: string | null): GatewayError {
  const message = upstreamErrorMessage(parse(bodyText));
  const detail = message ? `: ${message}` : "";
  const headers: Record<string, string> = retryAfter ? { "retry-after": retryAfter } : {};
  if (status === 400 || status === 422) return new GatewayError(400, "invalid_request_error", message ?? "upstream rejected the request");
  if (status === 401 || status === 403) {
    return new GatewayError(502, "upstream_error", `upstream refused the gateway's credentials (${status})`, { retryable: true });
  }
  if (status === 404) return new GatewayError(404, "not_found_error", `upstream: not found${detail}`, { retryable: true });
  if (status === 413) return new GatewayError(413, "request_too_large", message ?? "request too large for the upstream");
  if (status === 429) return new GatewayError(429, "rate_limit_error", `upstream rate limit${detail}`, { retryable: true, headers });
  if (status === 408 || status === 504) return new GatewayError(504, "timeout_error", `upstream timed out${detail}`, { retryable: true });
  if (status === 529 || status === 503) {
    return new GatewayError(529, "overloaded_error", `upstream overloaded${detail}`, { retryable: true, headers });
  }
  return new GatewayError(502, "api_error", `upstream error ${status}${detail}`, { retryable: true });
}
