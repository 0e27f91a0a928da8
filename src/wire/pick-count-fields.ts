import type { JsonObject } from "../canonical/json-object.ts";

/**
 * A count endpoint's body: `model` and, of `source`, only the `fields` the endpoint takes (it
 * refuses anything else, such as a stray `max_tokens` or `stream`).
 */
export function pickCountFields(source: JsonObject, fields: readonly string[], upstreamModelId: string): JsonObject {
  const out: JsonObject = { model: upstreamModelId };
  for (const field of fields) if (source[field] !== undefined) out[field] = source[field];
  return out;
}
