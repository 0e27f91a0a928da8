import { fail } from "../../canonical/gateway-error.ts";
import { isJsonObject } from "../../canonical/json-object.ts";
import type { WireApi } from "../../wire/wire-api.ts";
import { classifyErrorEvent } from "../sse/classify-error-event.ts";
import type { SseEvent } from "../../wire/sse-event.ts";

/**
 * Checks an event that arrives before anything is committed to the client, where a failure may
 * still be retried or fail over: a malformed event, an early end or the upstream's error event
 * throws. Returns true while the stream has only opened (nothing but its opening events so far):
 * an error right after them is still a failed call, as on the translated path.
 */
export function checkFirstEvent(api: WireApi, event: SseEvent): boolean {
  if (event.data === api.streamEnd) throw fail("UpstreamCut", "upstream stream ended before any content");
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.data);
  } catch {
    throw fail("UpstreamMalformed", "upstream sent a malformed first event");
  }
  const failure = classifyErrorEvent(api.upstream, event, parsed);
  if (failure) throw failure;
  return isJsonObject(parsed) && api.opensStream(parsed);
}
