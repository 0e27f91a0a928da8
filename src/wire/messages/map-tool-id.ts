/**
 * Tool-call ids across the Messages format, which accepts only `^[a-zA-Z0-9_-]+$`. An id of another
 * API that does not fit (`functions.get_weather:0` from some Chat servers) is shown as `rlid_` and
 * its base64url text, which fits and carries the original, so the id is restored exactly when the
 * client sends the history back. Stateless: any gateway instance can map it back.
 */
const VALID = /^[a-zA-Z0-9_-]+$/;
const PREFIX = "rlid_";

/** The id a Messages client is shown for a tool call. */
export function toMessagesToolId(id: string): string {
  return VALID.test(id) && !id.startsWith(PREFIX) ? id : PREFIX + Buffer.from(id, "utf8").toString("base64url");
}

/** The original id of a tool call a Messages client names (its own ids pass unchanged). */
export function fromMessagesToolId(id: string): string {
  return id.startsWith(PREFIX) ? Buffer.from(id.slice(PREFIX.length), "base64url").toString("utf8") : id;
}
