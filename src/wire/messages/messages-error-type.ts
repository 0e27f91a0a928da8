import type { GatewayErrorType } from "../../canonical/gateway-error.ts";

/**
 * The Messages API's name for a gateway error type. Its clients know only the API's own types
 * (`invalid_request_error` … `overloaded_error`); a failure of the upstream is, to them, an
 * `api_error` of the service they called.
 */
export function messagesErrorType(type: GatewayErrorType): Exclude<GatewayErrorType, "upstream_error"> {
  return type === "upstream_error" ? "api_error" : type;
}
