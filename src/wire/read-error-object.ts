import type { JsonObject } from "../canonical/json-object.ts";
import type { UpstreamErrorEvent } from "./upstream-adapter.ts";

/** An API error object's type, code and message (an empty message is none), as the error events of every API nest it. */
export function readErrorObject(error: JsonObject): UpstreamErrorEvent {
  return { kinds: [error.type, error.code], message: typeof error.message === "string" && error.message !== "" ? error.message : undefined };
}
