import type { GatewayError } from "../../canonical/gateway-error.ts";

/** A Chat stream's error chunk (no `event:` line; the SDKs throw on a chunk with a top-level `error`). No `[DONE]` follows. */
export function encodeChatStreamError(error: GatewayError): string {
  return `data: ${JSON.stringify({ error: { message: error.message, type: error.type, param: error.param, code: error.code } })}\n\n`;
}
