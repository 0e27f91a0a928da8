import type { GatewayError } from "../../canonical/gateway-error.ts";
import { messagesErrorType } from "./messages-error-type.ts";

/** Messages-style error body: `{type: "error", error: {type, message}, request_id}`. */
export function encodeMessagesError(error: GatewayError, requestId: string): string {
  return JSON.stringify({ type: "error", error: { type: messagesErrorType(error.type), message: error.message }, request_id: requestId });
}
