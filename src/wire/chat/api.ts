import type { ClientFormat } from "../client-format.ts";
import { encodeOpenAIError } from "../encode-openai-error.ts";
import { openAIErrorStatus } from "../openai-error-status.ts";
import { openAIVersionHeaders } from "../openai-version-headers.ts";
import type { UpstreamAdapter } from "../upstream-adapter.ts";
import type { WireApi } from "../wire-api.ts";
import { ANSWER_ID_PREFIXES } from "../show-answer-id.ts";
import { askChatStreamUsage, chatClientAskedUsage } from "./ask-stream-usage.ts";
import { checkChatRequest } from "./check-request.ts";
import { chatFormat } from "./client-side.ts";
import { encodeChatStreamError } from "./encode-stream-error.ts";
import { CHAT_STREAM_END, inspectChatStream } from "./inspect-stream.ts";
import { decodeChatUsage } from "./map-usage.ts";
import { chatOpensStream } from "./opens-stream.ts";
import { setChatEffort } from "./set-effort.ts";
import { chatAdapter } from "./upstream-side.ts";
import { wantsSeveralChoices } from "./wants-several-choices.ts";

/** The Chat Completions API (`POST /v1/chat/completions`). */
export const chatApi: WireApi = {
  name: "chat",
  path: "/v1/chat/completions",
  requestIdHeader: "x-request-id",
  answerIdPrefix: ANSWER_ID_PREFIXES.chat,
  // The tightest of the three.
  maxToolIdLength: 40,
  needsThinkingWithToolCalls: false,

  checkRequest: checkChatRequest,
  needsOwnApi: wantsSeveralChoices,
  client: chatFormat as ClientFormat,
  clientAskedUsage: chatClientAskedUsage,
  encodeError: (error) => encodeOpenAIError(error),
  errorStatus: openAIErrorStatus,
  encodeStreamError: (error) => encodeChatStreamError(error),
  // The API defines no keep-alive; an SSE comment line is what every SSE parser skips.
  keepalive: new TextEncoder().encode(": keepalive\n\n"),

  upstream: chatAdapter as UpstreamAdapter,
  setEffort: setChatEffort,
  versionHeaders: openAIVersionHeaders,

  // Chat history carries no thinking of its own.
  stripThinking: (body) => ({ value: body, thinkingMustBeOff: false }),
  askStreamUsage: askChatStreamUsage,
  readUsage: (lastUsage) => (lastUsage === undefined ? undefined : decodeChatUsage(lastUsage)),
  opensStream: chatOpensStream,
  inspectStream: inspectChatStream,
  modelInEveryEvent: true,
  usageAfterFilter: true,
  streamEnd: CHAT_STREAM_END,
};
