import type { ClientFormat } from "../client-format.ts";
import { decodeResponsesRequest } from "./decode-request.ts";
import { encodeResponsesResponse } from "./encode-response.ts";
import { responsesStreamEncoder, type ResponsesEncodeState } from "./encode-stream.ts";
import type { ResponsesResponse } from "./shapes.ts";

/** The Responses wire format as spoken by clients on `/v1/responses`. */
export const responsesFormat = {
  format: "responses",
  decodeRequest: decodeResponsesRequest,
  encodeResponse: encodeResponsesResponse,
  stream: responsesStreamEncoder,
} satisfies ClientFormat<ResponsesEncodeState, ResponsesResponse>;
