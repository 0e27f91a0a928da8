import type { GatewayError } from "../../canonical/gateway-error.ts";

/** A Messages stream's own error event, for failures after the first byte. */
export function encodeMessagesStreamError(error: GatewayError): string {
  return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: error.type, message: error.message } })}\n\n`;
}
