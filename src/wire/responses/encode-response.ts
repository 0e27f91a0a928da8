import type { CanonicalResponse } from "../../canonical/response.ts";
import type { EncodeContext } from "../client-format.ts";
import { buildResponseObject, functionCallItem, itemIdFor, messageItem, reasoningItem, redactedReasoningItem, responseIdFor } from "./build-output-items.ts";
import { encodeResponsesStopReason } from "./map-stop-reason.ts";
import type { ResponsesOutputItem, ResponsesResponse } from "./shapes.ts";

/**
 * A canonical answer as a Responses body: one output item per part, in order (reasoning, message,
 * function_call). Redacted thinking is a reasoning item whose `encrypted_content` carries it back.
 */
export function encodeResponsesResponse(response: CanonicalResponse, ctx: EncodeContext): ResponsesResponse {
  const id = responseIdFor(response.id);
  const output: ResponsesOutputItem[] = [];
  for (const part of response.content) {
    const position = output.length;
    switch (part.type) {
      case "text":
        output.push(messageItem(itemIdFor("msg", id, position), [part.text], "completed"));
        break;
      case "thinking":
        output.push(reasoningItem(itemIdFor("rs", id, position), part));
        break;
      case "tool_call":
        output.push(functionCallItem(itemIdFor("fc", id, position), part.id, part.name, part.arguments, "completed"));
        break;
      case "redacted_thinking":
        output.push(redactedReasoningItem(itemIdFor("rs", id, position), part.data));
        break;
      default: {
        const unreachable: never = part;
        return unreachable;
      }
    }
  }
  const outcome = encodeResponsesStopReason(response.stopReason);
  return buildResponseObject(
    { id, status: outcome.status, incompleteDetails: outcome.incompleteDetails, output, usage: response.usage },
    ctx,
  );
}
