import type { TokenCount } from "../wire-api.ts";
import { pickCountFields } from "../pick-count-fields.ts";
import { encodeResponsesRequest } from "./encode-request.ts";

/** What `/v1/responses/input_tokens` takes besides `model`. */
const FIELDS = ["input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "reasoning", "text", "truncation"];

/** The Responses API's input-token endpoint. */
export const responsesTokenCount: TokenCount = {
  path: "/v1/responses/input_tokens",
  fromOwn: (body, upstreamModelId) => pickCountFields(body, FIELDS, upstreamModelId),
  fromCanonical: (request, model) => pickCountFields(encodeResponsesRequest(request, { upstreamModelId: model.upstreamId, model }).value, FIELDS, model.upstreamId),
};
