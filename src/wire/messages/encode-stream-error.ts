import type { GatewayError } from "../../canonical/gateway-error.ts";
import { messagesErrorType } from "./messages-error-type.ts";

/** A Messages stream's own error event, for failures after the first byte. */
export function encodeMessagesStreamError(error: GatewayError): string {
  return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: messagesErrorType(error.type), message: error.message } })}\n\n`;
}
