import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { readErrorObject } from "../read-error-object.ts";
import type { UpstreamErrorEvent } from "../upstream-adapter.ts";

/** A Chat stream's error chunk: a top-level `error` object and no `type`; also an `error` event, as some compatible servers send. */
export function readChatErrorEvent(name: string | undefined, event: JsonObject): UpstreamErrorEvent | undefined {
  if (name !== "error" && event.type !== "error" && !(event.type === undefined && isJsonObject(event.error))) return undefined;
  return isJsonObject(event.error) ? readErrorObject(event.error) : { kinds: [], message: undefined };
}
