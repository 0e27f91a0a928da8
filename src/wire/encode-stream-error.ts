import type { GatewayError } from "../canonical/gateway-error.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { encodeChatStreamError } from "./chat/encode-stream-error.ts";
import { encodeMessagesStreamError } from "./messages/encode-stream-error.ts";
import { encodeResponsesStreamError } from "./responses/encode-stream-error.ts";

/** The in-stream error event of a format; `nextSequence` is the Responses `sequence_number` it takes. */
export function encodeStreamError(format: WireFormat, error: GatewayError, nextSequence: number): string {
  switch (format) {
    case "messages":
      return encodeMessagesStreamError(error);
    case "chat":
      return encodeChatStreamError(error);
    case "responses":
      return encodeResponsesStreamError(error, nextSequence);
    default: {
      const unreachable: never = format;
      return unreachable;
    }
  }
}
