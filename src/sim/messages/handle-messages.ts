import { anthropicError } from "../anthropic-error.ts";
import { prepareAnswer } from "../prepare-answer.ts";
import { sendEvents } from "../send-events.ts";
import { sendJson } from "../send-json.ts";
import type { SimRequest } from "../types.ts";
import { buildMessagesBody } from "./build-messages-body.ts";
import { buildMessagesStream } from "./build-messages-stream.ts";
import { checkThinkingHistory } from "./check-thinking-history.ts";
import { readMessagesRequest } from "./read-messages-request.ts";

/** `POST /v1/messages`: the Anthropic Messages API, stream and non-stream. */
export async function handleMessages(req: SimRequest): Promise<Response> {
  const prepared = await prepareAnswer(req, {
    invalidJsonMessage: "There was an error parsing the body of your request: invalid JSON",
    read: (body, seed) => readMessagesRequest(body, seed, true),
    renderError: anthropicError,
    check: (input) => checkThinkingHistory(input.messages, input.model),
  });
  if (prepared instanceof Response) return prepared;
  const { input, answer, fault, requestId } = prepared;
  const headers = { "request-id": requestId };
  return input.stream
    ? sendEvents(buildMessagesStream(input, answer), fault, headers)
    : sendJson(buildMessagesBody(input, answer), fault, headers);
}
