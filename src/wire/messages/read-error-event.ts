import type { JsonObject } from "../../canonical/json-object.ts";
import { isErrorEvent, readNestedError } from "../read-error-object.ts";
import type { UpstreamErrorEvent } from "../upstream-adapter.ts";

/**
 * A Messages stream's `error` event (`{"type": "error", "error": {"type", "message"}}`); also a bare
 * `{"error": …}` body, which a proxy in front of the API may send as an event.
 */
export function readMessagesErrorEvent(name: string | undefined, event: JsonObject): UpstreamErrorEvent | undefined {
  return isErrorEvent(name, event) ? readNestedError(event) : undefined;
}
