/** A JSON object as read off the wire: keys to unknown values. */
export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
