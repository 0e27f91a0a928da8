import type { GatewayErrorType } from "../../canonical/gateway-error.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

export interface ResponsesFailure {
  readonly status: number;
  readonly type: GatewayErrorType;
  readonly message: string;
}

/** Error types that already name a gateway error (a Routelane upstream, or the shared OpenAI/Anthropic names). */
const KNOWN_TYPES: Readonly<Record<string, readonly [number, GatewayErrorType]>> = {
  invalid_request_error: [400, "invalid_request_error"],
  authentication_error: [401, "authentication_error"],
  permission_error: [403, "permission_error"],
  not_found_error: [404, "not_found_error"],
  request_too_large: [413, "request_too_large"],
  rate_limit_error: [429, "rate_limit_error"],
  api_error: [500, "api_error"],
  upstream_error: [502, "upstream_error"],
  overloaded_error: [529, "overloaded_error"],
  timeout_error: [504, "timeout_error"],
};

/**
 * A Responses failure (an `error` event, nested or flat, or a failed response's `error`) as a
 * gateway error. The upstream's message is kept: it describes the failure, not the prompt.
 */
export function classifyResponsesFailure(raw: unknown, fallback: string): ResponsesFailure {
  const error = isJsonObject(raw) && isJsonObject(raw.error) ? raw.error : raw;
  const code = isJsonObject(error) && typeof error.code === "string" ? error.code : "";
  const type = isJsonObject(error) && typeof error.type === "string" ? error.type : "";
  const message = isJsonObject(error) && typeof error.message === "string" && error.message !== "" ? error.message : fallback;
  // Out of quota is a 429 over HTTP too: the caller sees it as the gateway's rate-limit answer.
  if (code === "rate_limit_exceeded" || code === "insufficient_quota" || type === "tokens" || type === "requests") return { status: 429, type: "rate_limit_error", message };
  if (code === "server_is_overloaded" || code === "slow_down" || type === "service_unavailable_error") {
    return { status: 503, type: "overloaded_error", message };
  }
  const known = KNOWN_TYPES[type];
  if (known !== undefined) return { status: known[0], type: known[1], message };
  return { status: 502, type: "upstream_error", message };
}
