import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { readErrorObject } from "../read-error-object.ts";
import type { UpstreamErrorEvent } from "../upstream-adapter.ts";

/**
 * A Messages stream's `error` event (`{"type": "error", "error": {"type", "message"}}`); also a bare
 * `{"error": …}` body, which a proxy in front of the API may send as an event.
 */
export function readMessagesErrorEvent(name: string | undefined, event: JsonObject): UpstreamErrorEvent | undefined {
  if (name !== "error" && event.type !== "error" && !(event.type === undefined && isJsonObject(event.error))) return undefined;
  return isJsonObject(event.error) ? readErrorObject(event.error) : { kinds: [], message: undefined };
}
