import { anthropicError } from "../anthropic-error.ts";
import { makeId } from "../make-id.ts";
import type { SimRequest } from "../types.ts";
import { readMessagesRequest } from "./read-messages-request.ts";

/** `POST /v1/messages/count_tokens` → `{input_tokens}`: the same total the Messages usage reports. */
export function handleCountTokens(req: SimRequest): Response {
  const requestId = makeId("req_sim", req.seed);
  if (req.invalidJson) return anthropicError(400, "There was an error parsing the body of your request: invalid JSON", requestId);
  const read = readMessagesRequest(req.body, req.seed, false);
  if (!read.ok) return anthropicError(400, read.message, requestId);
  return Response.json({ input_tokens: read.value.usage.total }, { headers: { "request-id": requestId } });
}
