import { fail } from "../../canonical/gateway-error.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { classifyErrorEvent } from "../sse/classify-error-event.ts";
import type { SseEvent } from "../sse/read-first-event.ts";

/** Events that open a stream without content: Messages `message_start` and pings, the Responses lifecycle's start. */
const OPENING_TYPES: ReadonlySet<unknown> = new Set(["message_start", "ping", "response.created", "response.queued", "response.in_progress"]);

const said = (value: unknown): boolean => (typeof value === "string" && value !== "") || (Array.isArray(value) && value.length > 0);

/** A Chat chunk with nothing in it yet: the role alone, or Azure's id-less filter chunk. */
function chatOpens(chunk: JsonObject, choices: readonly unknown[]): boolean {
  if (chunk.usage !== undefined && chunk.usage !== null) return false;
  return choices.every((choice) => {
    if (!isJsonObject(choice) || (choice.finish_reason !== null && choice.finish_reason !== undefined)) return false;
    const delta = isJsonObject(choice.delta) ? choice.delta : {};
    return !said(delta.content) && !said(delta.refusal) && !said(delta.reasoning_content) && !said(delta.reasoning) && !said(delta.tool_calls);
  });
}

/** An event that opens the stream without content (the event types of the APIs do not overlap; Chat chunks have none). */
function opens(parsed: JsonObject): boolean {
  if (OPENING_TYPES.has(parsed.type)) return true;
  return parsed.type === undefined && Array.isArray(parsed.choices) && chatOpens(parsed, parsed.choices);
}

/**
 * Checks an event that arrives before anything is committed to the client, where a failure may
 * still be retried or fail over: a malformed event, an early end or the upstream's error event
 * throws. Returns true while the stream has only opened (nothing but its opening events so far):
 * an error right after them is still a failed call, as on the translated path.
 */
export function checkFirstEvent(event: SseEvent): boolean {
  if (event.data === "[DONE]") throw fail("UpstreamCut", "upstream stream ended before any content");
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.data);
  } catch {
    throw fail("UpstreamMalformed", "upstream sent a malformed first event");
  }
  const failure = classifyErrorEvent(event, parsed);
  if (failure) throw failure;
  return isJsonObject(parsed) && opens(parsed);
}
