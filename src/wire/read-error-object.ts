import { isJsonObject, type JsonObject } from "../canonical/json-object.ts";
import type { UpstreamErrorEvent } from "./upstream-adapter.ts";

/** An API error object's type, code and message (an empty message is none), as the error events of every API nest it. */
export function readErrorObject(error: JsonObject): UpstreamErrorEvent {
  return { kinds: [error.type, error.code], message: typeof error.message === "string" && error.message !== "" ? error.message : undefined };
}

/**
 * An event that carries an error in the shape every API uses for one: named `error`, of type
 * `error`, or a bare `{"error": …}` body (a Chat error chunk, or what a proxy in front of any API sends).
 */
export function isErrorEvent(name: string | undefined, event: JsonObject): boolean {
  return name === "error" || event.type === "error" || (event.type === undefined && isJsonObject(event.error));
}

/** The error nested in an error event's `error`; nothing known when it has none. */
export const readNestedError = (event: JsonObject): UpstreamErrorEvent => (isJsonObject(event.error) ? readErrorObject(event.error) : { kinds: [], message: undefined });
