import { applyLeadingFault } from "../apply-leading-fault.ts";
import { makeId } from "../make-id.ts";
import { openaiError } from "../openai-error.ts";
import { planAnswer } from "../plan-answer.ts";
import { readControls } from "../read-controls.ts";
import { sendEvents } from "../send-events.ts";
import { sendJson } from "../send-json.ts";
import type { SimRequest } from "../types.ts";
import { buildResponseObject, responseItems, responsesUsage } from "./build-response-object.ts";
import { buildResponsesStream } from "./build-responses-stream.ts";
import { readResponsesRequest } from "./read-responses-request.ts";

/** `POST /v1/responses`: the OpenAI Responses API, stream and non-stream. Nothing is stored. */
export async function handleResponses(req: SimRequest): Promise<Response> {
  const requestId = makeId("req_sim", req.seed);
  if (req.invalidJson) return openaiError(400, "We could not parse the JSON body of your request.", requestId);
  const read = readResponsesRequest(req.body, req.seed, false);
  if (!read.ok) return openaiError(400, read.message, requestId, { param: read.param ?? null, code: read.code ?? null });
  const input = read.value;
  const { fault, text } = readControls(req, input.model, input.userText);
  const early = await applyLeadingFault(fault, req.signal, (status, message) => openaiError(status, message, requestId));
  if (early) return early;
  const answer = planAnswer(input, fault, text);
  const createdAt = Math.floor(Date.now() / 1000);
  const headers = { "x-request-id": requestId };
  if (input.stream) return sendEvents(buildResponsesStream(input, answer, createdAt), fault, headers);
  const status = answer.stop === "length" ? "incomplete" : "completed";
  const output = responseItems(input, answer);
  return sendJson(buildResponseObject(input, { status, output, usage: responsesUsage(input, answer), createdAt }), fault, headers);
}
