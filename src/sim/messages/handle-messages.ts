import { anthropicError } from "../anthropic-error.ts";
import { applyLeadingFault } from "../apply-leading-fault.ts";
import { makeId } from "../make-id.ts";
import { planAnswer } from "../plan-answer.ts";
import { readControls } from "../read-controls.ts";
import { sendEvents } from "../send-events.ts";
import { sendJson } from "../send-json.ts";
import type { SimRequest } from "../types.ts";
import { buildMessagesBody } from "./build-messages-body.ts";
import { buildMessagesStream } from "./build-messages-stream.ts";
import { checkThinkingHistory } from "./check-thinking-history.ts";
import { readMessagesRequest } from "./read-messages-request.ts";

/** `POST /v1/messages`: the Anthropic Messages API, stream and non-stream. */
export async function handleMessages(req: SimRequest): Promise<Response> {
  const requestId = makeId("req_sim", req.seed);
  if (req.invalidJson) return anthropicError(400, "There was an error parsing the body of your request: invalid JSON", requestId);
  const read = readMessagesRequest(req.body, req.seed, true);
  if (!read.ok) return anthropicError(400, read.message, requestId);
  const input = read.value;
  const badThinking = checkThinkingHistory(input.messages, input.model);
  if (badThinking) return anthropicError(400, badThinking, requestId);
  const { fault, text } = readControls(req, input.model, input.userText);
  const early = await applyLeadingFault(fault, req.signal, (status, message) => anthropicError(status, message, requestId));
  if (early) return early;
  const answer = planAnswer(input, fault, text);
  const headers = { "request-id": requestId };
  return input.stream
    ? sendEvents(buildMessagesStream(input, answer), fault, headers)
    : sendJson(buildMessagesBody(input, answer), fault, headers);
}
