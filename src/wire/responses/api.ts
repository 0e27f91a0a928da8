import type { ClientFormat } from "../client-format.ts";
import { encodeOpenAIError } from "../encode-openai-error.ts";
import { openAIErrorStatus } from "../openai-error-status.ts";
import { openAIVersionHeaders } from "../openai-version-headers.ts";
import type { UpstreamAdapter } from "../upstream-adapter.ts";
import type { WireApi } from "../wire-api.ts";
import { ANSWER_ID_PREFIXES } from "../show-answer-id.ts";
import { responseIdFor } from "./build-output-items.ts";
import { responsesTokenCount } from "./count-tokens.ts";
import { checkResponsesRequest } from "./check-request.ts";
import { responsesFormat } from "./client-side.ts";
import { encodeResponsesStreamError } from "./encode-stream-error.ts";
import { inspectResponsesStream } from "./inspect-stream.ts";
import { decodeResponsesUsage } from "./map-usage.ts";
import { readResponseId } from "./read-response-id.ts";
import { responsesOpensStream } from "./opens-stream.ts";
import { setResponsesEffort } from "./set-effort.ts";
import { stripResponsesReasoning } from "./strip-thinking.ts";
import { responsesAdapter } from "./upstream-side.ts";

/** The Responses API (`POST /v1/responses`). */
export const responsesApi: WireApi = {
  name: "responses",
  path: "/v1/responses",
  requestIdHeader: "x-request-id",
  answerIdPrefix: ANSWER_ID_PREFIXES.responses,
  maxToolIdLength: 64,
  conversationIds: { shownId: responseIdFor, readFrom: readResponseId },
  needsThinkingWithToolCalls: false,

  checkRequest: checkResponsesRequest,
  needsOwnApi: () => false,
  client: responsesFormat as ClientFormat,
  // The API always reports a stream\'s usage.
  clientAskedUsage: () => false,
  encodeError: (error) => encodeOpenAIError(error),
  errorStatus: openAIErrorStatus,
  encodeStreamError: encodeResponsesStreamError,
  // The API defines no keep-alive; an SSE comment line is what every SSE parser skips.
  keepalive: new TextEncoder().encode(": keepalive\n\n"),

  upstream: responsesAdapter as UpstreamAdapter,
  setEffort: setResponsesEffort,
  versionHeaders: openAIVersionHeaders,

  // Reasoning items are bound to the model that made them: all of them go, whatever `turns` says.
  countTokens: responsesTokenCount,

  stripThinking: (body) => ({ value: stripResponsesReasoning(body).value, thinkingMustBeOff: false }),
  askStreamUsage: () => false,
  readUsage: (lastUsage) => (lastUsage === undefined ? undefined : decodeResponsesUsage(lastUsage)),
  opensStream: responsesOpensStream,
  inspectStream: inspectResponsesStream,
  modelInEveryEvent: true,
  // A blocked response's own event carries its usage.
  usageAfterFilter: false,
};
