import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** Responses body: drops `reasoning` input items (their `encrypted_content` is bound to the model that made them). */
export function stripResponsesReasoning(body: JsonObject): { value: JsonObject; removed: number } {
  if (!Array.isArray(body.input)) return { value: body, removed: 0 };
  const input = body.input.filter((item) => !(isJsonObject(item) && item.type === "reasoning"));
  const removed = body.input.length - input.length;
  return removed === 0 ? { value: body, removed } : { value: { ...body, input }, removed };
}
