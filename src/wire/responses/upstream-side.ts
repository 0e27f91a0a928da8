import type { UpstreamAdapter } from "../upstream-adapter.ts";
import { decodeResponsesResponse } from "./decode-response.ts";
import { responsesStreamDecoder, type ResponsesDecodeState } from "./decode-stream.ts";
import { encodeResponsesRequest } from "./encode-request.ts";
import { readResponsesErrorEvent } from "./read-error-event.ts";

/** The OpenAI Responses API as an upstream of translated requests. */
export const responsesAdapter = {
  api: "responses",
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  stream: responsesStreamDecoder,
  readErrorEvent: readResponsesErrorEvent,
} satisfies UpstreamAdapter<ResponsesDecodeState>;
