import { openaiError } from "../openai-error.ts";
import { prepareAnswer } from "../prepare-answer.ts";
import { sendEvents } from "../send-events.ts";
import { sendJson } from "../send-json.ts";
import type { SimRequest } from "../types.ts";
import { buildChatBody } from "./build-chat-body.ts";
import { buildChatStream } from "./build-chat-stream.ts";
import { readChatRequest } from "./read-chat-request.ts";

/** `POST /v1/chat/completions`: the OpenAI Chat Completions API, stream and non-stream. */
export async function handleChat(req: SimRequest): Promise<Response> {
  const prepared = await prepareAnswer(req, {
    invalidJsonMessage: "We could not parse the JSON body of your request.",
    read: readChatRequest,
    renderError: openaiError,
  });
  if (prepared instanceof Response) return prepared;
  const { input, answer, fault, requestId } = prepared;
  const created = Math.floor(Date.now() / 1000);
  const headers = { "x-request-id": requestId };
  return input.stream
    ? sendEvents(buildChatStream(input, answer, created), fault, headers)
    : sendJson(buildChatBody(input, answer, created), fault, headers);
}
