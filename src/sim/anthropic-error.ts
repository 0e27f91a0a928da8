import { retryHeaders } from "./retry-headers.ts";

const TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  405: "invalid_request_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

const DEFAULT_MESSAGES: Record<string, string> = {
  rate_limit_error: "Number of requests has exceeded your rate limit (simulated)",
  overloaded_error: "Overloaded",
  api_error: "Internal server error",
};

/** The Anthropic error type for an HTTP status. */
export function anthropicErrorType(status: number): string {
  return TYPES[status] ?? (status < 500 ? "invalid_request_error" : "api_error");
}

/** An error response in the Anthropic shape: `{type:"error", error:{type,message}, request_id}`. */
export function anthropicError(status: number, message: string | undefined, requestId: string): Response {
  const type = anthropicErrorType(status);
  const body = { type: "error", error: { type, message: message ?? DEFAULT_MESSAGES[type] ?? type }, request_id: requestId };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "request-id": requestId, ...retryHeaders(status) },
  });
}
