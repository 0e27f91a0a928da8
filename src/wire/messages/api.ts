import type { ClientFormat } from "../client-format.ts";
import type { UpstreamAdapter } from "../upstream-adapter.ts";
import type { WireApi } from "../wire-api.ts";
import { ANSWER_ID_PREFIXES } from "../show-answer-id.ts";
import { messagesTokenCount } from "./count-tokens.ts";
import { checkMessagesRequest } from "./check-request.ts";
import { messagesFormat } from "./client-side.ts";
import { encodeMessagesError } from "./encode-error.ts";
import { encodeMessagesStreamError } from "./encode-stream-error.ts";
import { fitThinkingConstraints } from "./fit-thinking-constraints.ts";
import { inspectMessagesStream } from "./inspect-stream.ts";
import { readMessagesUsage } from "./map-usage.ts";
import { messagesOpensStream } from "./opens-stream.ts";
import { setMessagesEffort } from "./set-effort.ts";
import { stripMessagesThinking } from "./strip-thinking.ts";
import { messagesAdapter } from "./upstream-side.ts";
import { messagesVersionHeaders } from "./version-headers.ts";

/** The Messages API (`POST /v1/messages`). */
export const messagesApi: WireApi = {
  name: "messages",
  path: "/v1/messages",
  requestIdHeader: "request-id",
  answerIdPrefix: ANSWER_ID_PREFIXES.messages,
  maxToolIdLength: 64,
  needsThinkingWithToolCalls: true,

  checkRequest: checkMessagesRequest,
  needsOwnApi: () => false,
  client: messagesFormat as ClientFormat,
  // The API always reports a stream\'s usage.
  clientAskedUsage: () => false,
  encodeError: encodeMessagesError,
  errorStatus: (status) => status,
  encodeStreamError: (error) => encodeMessagesStreamError(error),
  // Messages sends `ping` events, the shape the real API sends.
  keepalive: new TextEncoder().encode('event: ping\ndata: {"type":"ping"}\n\n'),

  upstream: messagesAdapter as UpstreamAdapter,
  setEffort(body, effort, model) {
    const set = setMessagesEffort(body, effort, model);
    // The gateway's effort may turn thinking on where the client's fields forbid it.
    const fitted = fitThinkingConstraints(body);
    return fitted.length === 0 ? set : { effort: set.effort, warnings: [...set.warnings, ...fitted] };
  },
  versionHeaders: messagesVersionHeaders,

  countTokens: messagesTokenCount,

  stripThinking: (body, turns) => stripMessagesThinking(body, turns),
  askStreamUsage: () => false,
  readUsage: readMessagesUsage,
  opensStream: messagesOpensStream,
  inspectStream: inspectMessagesStream,
  modelInEveryEvent: false,
  usageAfterFilter: false,
};
