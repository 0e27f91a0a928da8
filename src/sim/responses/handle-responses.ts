import { openaiError } from "../openai-error.ts";
import { prepareAnswer } from "../prepare-answer.ts";
import { sendEvents } from "../send-events.ts";
import { sendJson } from "../send-json.ts";
import type { SimRequest } from "../types.ts";
import { buildResponseObject, responseItems, responsesUsage } from "./build-response-object.ts";
import { buildResponsesStream } from "./build-responses-stream.ts";
import { readResponsesRequest } from "./read-responses-request.ts";

/** `POST /v1/responses`: the OpenAI Responses API, stream and non-stream. Nothing is stored. */
export async function handleResponses(req: SimRequest): Promise<Response> {
  const prepared = await prepareAnswer(req, {
    invalidJsonMessage: "We could not parse the JSON body of your request.",
    read: (body, seed) => readResponsesRequest(body, seed, false),
    renderError: openaiError,
  });
  if (prepared instanceof Response) return prepared;
  const { input, answer, fault, requestId } = prepared;
  const createdAt = Math.floor(Date.now() / 1000);
  const headers = { "x-request-id": requestId };
  if (input.stream) return sendEvents(buildResponsesStream(input, answer, createdAt), fault, headers);
  const status = answer.stop === "length" ? "incomplete" : "completed";
  const output = responseItems(input, answer);
  return sendJson(buildResponseObject(input, { status, output, usage: responsesUsage(input, answer), createdAt }), fault, headers);
}
