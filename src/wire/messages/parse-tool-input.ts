import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/**
 * A tool call's JSON argument text → the object Messages `tool_use.input` must be. Empty text is
 * a call without arguments; text that is not a JSON object (cut off by a length stop, or a bare
 * value) cannot be carried and is reported with `ok: false`.
 */
export function parseToolInput(text: string): { input: JsonObject; ok: boolean } {
  if (text.trim() === "") return { input: {}, ok: true };
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? { input: value, ok: true } : { input: {}, ok: false };
  } catch {
    return { input: {}, ok: false };
  }
}
