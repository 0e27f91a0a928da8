import type { UpstreamAdapter } from "../upstream-adapter.ts";
import { decodeMessagesResponse } from "./decode-response.ts";
import { messagesStreamDecoder, type MessagesDecodeState } from "./decode-stream.ts";
import { encodeMessagesRequest } from "./encode-request.ts";
import { readMessagesErrorEvent } from "./read-error-event.ts";

/** The Messages upstream API: canonical requests out, Messages answers and streams back in. */
export const messagesAdapter = {
  api: "messages",
  encodeRequest: encodeMessagesRequest,
  decodeResponse: decodeMessagesResponse,
  stream: messagesStreamDecoder,
  readErrorEvent: readMessagesErrorEvent,
} satisfies UpstreamAdapter<MessagesDecodeState>;
