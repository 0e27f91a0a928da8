import { makeId } from "../make-id.ts";
import { openaiError } from "../openai-error.ts";
import type { SimRequest } from "../types.ts";
import { readResponsesRequest } from "./read-responses-request.ts";

/** `POST /v1/responses/input_tokens` → the same input total the Responses usage reports. */
export function handleInputTokens(req: SimRequest): Response {
  const requestId = makeId("req_sim", req.seed);
  if (req.invalidJson) return openaiError(400, "We could not parse the JSON body of your request.", requestId);
  const read = readResponsesRequest(req.body, req.seed, true);
  if (!read.ok) return openaiError(400, read.message, requestId, { param: read.param ?? null, code: read.code ?? null });
  return Response.json({ object: "response.input_tokens", input_tokens: read.value.usage.total }, { headers: { "x-request-id": requestId } });
}
