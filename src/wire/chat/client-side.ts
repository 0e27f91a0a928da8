import type { ClientFormat } from "../client-format.ts";
import { decodeChatRequest } from "./decode-request.ts";
import { encodeChatResponse } from "./encode-response.ts";
import type { ChatCompletion } from "./shapes.ts";
import { chatStreamEncoder, type ChatStreamState } from "./encode-stream.ts";

/** The Chat Completions client format (`POST /v1/chat/completions`). */
export const chatFormat = {
  format: "chat",
  decodeRequest: decodeChatRequest,
  encodeResponse: encodeChatResponse,
  stream: chatStreamEncoder,
} satisfies ClientFormat<ChatStreamState, ChatCompletion>;
