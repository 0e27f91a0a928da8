import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/**
 * A Chat upstream reports a stream's usage only when `stream_options.include_usage` asks for it,
 * and every request is accounted for: it is always asked for. True when the client had not asked,
 * so the usage chunk is not passed on to it. Mutates `body`.
 */
export function askChatStreamUsage(body: JsonObject): boolean {
  const options = isJsonObject(body.stream_options) ? body.stream_options : undefined;
  if (options?.include_usage === true) return false;
  body.stream_options = { ...(options ?? {}), include_usage: true };
  return true;
}
