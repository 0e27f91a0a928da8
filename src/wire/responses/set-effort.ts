import type { Effort } from "../../canonical/effort.ts";
import type { ModelConfig } from "../../config/schema.ts";
import { clampEffort } from "../../canonical/clamp-effort.ts";
import { openAIEffortValue } from "../openai-effort-value.ts";
import type { EffortResult } from "../effort-result.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** Sets `reasoning.effort` from the gateway's effort; other `reasoning` fields pass through. Mutates `body`. */
export function setResponsesEffort(body: JsonObject, wanted: Effort, model: ModelConfig): EffortResult {
  const reasoning = isJsonObject(body.reasoning) ? body.reasoning : {};
  if (model.thinking === "none") {
    const { effort: _dropped, ...rest } = reasoning;
    if (Object.keys(rest).length === 0) delete body.reasoning;
    else body.reasoning = rest;
    return { effort: "off", warnings: [] };
  }
  const effort = clampEffort(wanted, model.efforts);
  body.reasoning = { ...reasoning, effort: openAIEffortValue(effort) };
  return { effort, warnings: [] };
}
