import type { JsonObject } from "../../canonical/json-object.ts";
import { isErrorEvent, readNestedError } from "../read-error-object.ts";
import type { UpstreamErrorEvent } from "../upstream-adapter.ts";

/** A Chat stream's error chunk: a top-level `error` object and no `type`; also an `error` event, as some compatible servers send. */
export function readChatErrorEvent(name: string | undefined, event: JsonObject): UpstreamErrorEvent | undefined {
  return isErrorEvent(name, event) ? readNestedError(event) : undefined;
}
