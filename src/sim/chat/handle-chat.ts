import { applyLeadingFault } from "../apply-leading-fault.ts";
import { makeId } from "../make-id.ts";
import { openaiError } from "../openai-error.ts";
import { planAnswer } from "../plan-answer.ts";
import { readControls } from "../read-controls.ts";
import { sendEvents } from "../send-events.ts";
import { sendJson } from "../send-json.ts";
import type { SimRequest } from "../types.ts";
import { buildChatBody } from "./build-chat-body.ts";
import { buildChatStream } from "./build-chat-stream.ts";
import { readChatRequest } from "./read-chat-request.ts";

/** `POST /v1/chat/completions`: the OpenAI Chat Completions API, stream and non-stream. */
export async function handleChat(req: SimRequest): Promise<Response> {
  const requestId = makeId("req_sim", req.seed);
  if (req.invalidJson) return openaiError(400, "We could not parse the JSON body of your request.", requestId);
  const read = readChatRequest(req.body, req.seed);
  if (!read.ok) return openaiError(400, read.message, requestId, { param: read.param ?? null, code: read.code ?? null });
  const input = read.value;
  const { fault, text } = readControls(req, input.model, input.userText);
  const early = await applyLeadingFault(fault, req.signal, (status, message) => openaiError(status, message, requestId));
  if (early) return early;
  const answer = planAnswer(input, fault, text);
  const created = Math.floor(Date.now() / 1000);
  const headers = { "x-request-id": requestId };
  return input.stream
    ? sendEvents(buildChatStream(input, answer, created), fault, headers)
    : sendJson(buildChatBody(input, answer, created), fault, headers);
}
