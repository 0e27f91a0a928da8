import type { ClientFormat } from "../client-format.ts";
import { decodeMessagesRequest } from "./decode-request.ts";
import { encodeMessagesResponse } from "./encode-response.ts";
import type { MessagesMessage } from "./shapes.ts";
import { messagesStreamEncoder, type MessagesStreamState } from "./encode-stream.ts";

/** The Messages client format: `/v1/messages` requests in, Messages bodies and streams out. */
export const messagesFormat = {
  format: "messages",
  decodeRequest: decodeMessagesRequest,
  encodeResponse: encodeMessagesResponse,
  stream: messagesStreamEncoder,
} satisfies ClientFormat<MessagesStreamState, MessagesMessage>;
