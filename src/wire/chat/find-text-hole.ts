import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import type { JsonShape } from "../json-shape.ts";

/**
 * The delta of a shape whose events each say only "this text comes next", or null. Its `content`
 * is the one hole that means anything (OpenAI's `obfuscation` padding may be another), and it
 * carries no refusal, whose text each event would add again. The rest of what the shape holds
 * fixed acted once, when the chunk it was learned from was read whole: a usage kept, a tool call
 * begun, an error that ended the stream. A finish reason acts on every event (it stops the blocks
 * open), so the decoder reads every event whole once one has come. Found once per shape learned.
 */
export function findTextHole(shape: JsonShape): JsonObject | null {
  const { chunk } = shape;
  const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  const delta = isJsonObject(choice) ? choice.delta : undefined;
  if (!isJsonObject(delta) || (typeof delta.refusal === "string" && delta.refusal !== "")) return null;
  let text = false;
  for (const hole of shape.holes) {
    if (hole.parent === delta && hole.key === "content" && !hole.count) text = true;
    else if (!(hole.parent === chunk && hole.key === "obfuscation")) return null;
  }
  return text ? delta : null;
}
