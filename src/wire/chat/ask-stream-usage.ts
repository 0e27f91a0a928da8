import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** The client asked for the usage chunk at the end of its stream (`stream_options.include_usage`). */
export function chatClientAskedUsage(body: JsonObject): boolean {
  return isJsonObject(body.stream_options) && body.stream_options.include_usage === true;
}

/**
 * A Chat upstream reports a stream's usage only when `stream_options.include_usage` asks for it,
 * and every request is accounted for: it is always asked for. True when the client had not asked,
 * so the usage chunk is not passed on to it. Mutates `body`.
 */
export function askChatStreamUsage(body: JsonObject): boolean {
  if (chatClientAskedUsage(body)) return false;
  body.stream_options = { ...(isJsonObject(body.stream_options) ? body.stream_options : {}), include_usage: true };
  return true;
}
