import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { isErrorEvent, readErrorObject } from "../read-error-object.ts";
import type { UpstreamErrorEvent } from "../upstream-adapter.ts";

/**
 * A Responses stream's `error` event (its error nested, as recorded, or its fields at the top, as
 * the API reference shows them), `response.failed` (the error in `response.error`), or a bare
 * `{"error": …}` body.
 */
export function readResponsesErrorEvent(name: string | undefined, event: JsonObject): UpstreamErrorEvent | undefined {
  if (event.type === "response.failed") {
    const error = isJsonObject(event.response) ? event.response.error : undefined;
    return isJsonObject(error) ? readErrorObject(error) : { kinds: [], message: undefined };
  }
  if (!isErrorEvent(name, event)) return undefined;
  return readErrorObject(isJsonObject(event.error) ? event.error : event);
}
