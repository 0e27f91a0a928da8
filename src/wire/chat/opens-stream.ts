import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

const said = (value: unknown): boolean => (typeof value === "string" && value !== "") || (Array.isArray(value) && value.length > 0);

/** A Chat chunk with nothing in it yet: the role alone, or Azure's id-less filter chunk. */
export function chatOpensStream(chunk: JsonObject): boolean {
  const choices = chunk.choices;
  if (chunk.type !== undefined || !Array.isArray(choices)) return false;
  if (chunk.usage !== undefined && chunk.usage !== null) return false;
  return choices.every((choice) => {
    if (!isJsonObject(choice) || (choice.finish_reason !== null && choice.finish_reason !== undefined)) return false;
    const delta = isJsonObject(choice.delta) ? choice.delta : {};
    return !said(delta.content) && !said(delta.refusal) && !said(delta.reasoning_content) && !said(delta.reasoning) && !said(delta.tool_calls);
  });
}
