import type { GatewayError } from "../../canonical/gateway-error.ts";

/**
 * A Responses stream's error event. The live API nests the details under `error` while the
 * published schema is flat; both are sent so either kind of parser reads it (wire-formats §5.4).
 */
export function encodeResponsesStreamError(error: GatewayError, sequenceNumber: number): string {
  const data = {
    type: "error",
    code: error.code,
    message: error.message,
    param: error.param,
    error: { type: error.type, code: error.code, message: error.message, param: error.param },
    sequence_number: sequenceNumber,
  };
  return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
}
