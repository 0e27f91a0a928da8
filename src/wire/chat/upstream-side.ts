import type { UpstreamAdapter } from "../upstream-adapter.ts";
import { decodeChatResponse } from "./decode-response.ts";
import { chatStreamDecoder, type ChatDecodeState } from "./decode-stream.ts";
import { encodeChatRequest } from "./encode-request.ts";
import { readChatErrorEvent } from "./read-error-event.ts";

/** The Chat Completions upstream API (`POST /v1/chat/completions`), for clients of the other two formats. */
export const chatAdapter = {
  api: "chat",
  encodeRequest: encodeChatRequest,
  decodeResponse: decodeChatResponse,
  stream: chatStreamDecoder,
  readErrorEvent: readChatErrorEvent,
} satisfies UpstreamAdapter<ChatDecodeState>;
