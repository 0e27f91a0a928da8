import type { GatewayError } from "../../canonical/gateway-error.ts";

/**
 * A Responses stream's error event as the live API sends it: the details nested under `error`
 * (the published schema is flat, the recorded streams are not; the SDKs read the nested form).
 */
export function encodeResponsesStreamError(error: GatewayError, sequenceNumber: number): string {
  const data = {
    type: "error",
    sequence_number: sequenceNumber,
    error: { type: error.type, code: error.code, message: error.message, param: error.param },
  };
  return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
}
