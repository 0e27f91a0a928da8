import type { Effort } from "../../canonical/effort.ts";
import type { ModelConfig } from "../../config/schema.ts";
import { clampEffort } from "../../canonical/clamp-effort.ts";
import type { EffortResult } from "../effort-result.ts";
import { openAIEffortValue } from "../openai-effort-value.ts";
import type { JsonObject } from "../../canonical/json-object.ts";

/** Sets `reasoning_effort` from the gateway's effort, replacing the client's. Mutates `body`. */
export function setChatEffort(body: JsonObject, wanted: Effort, model: ModelConfig): EffortResult {
  if (model.thinking === "none") {
    delete body.reasoning_effort;
    return { effort: "off", warnings: [] };
  }
  const effort = clampEffort(wanted, model.efforts);
  body.reasoning_effort = openAIEffortValue(effort);
  return { effort, warnings: [] };
}
