import type { Effort } from "../../canonical/effort.ts";
import type { ModelConfig } from "../../config/schema.ts";
import { clampEffort } from "../../canonical/clamp-effort.ts";
import type { EffortResult } from "../effort-result.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** Manual thinking budgets per effort (wire-formats §3.4). The API needs 1024 <= budget < max_tokens. */
export const THINKING_BUDGETS: Readonly<Record<Exclude<Effort, "off">, number>> = {
  low: 1024,
  medium: 4096,
  high: 16384,
  max: 32768,
};
const MIN_BUDGET = 1024;

function removeOutputEffort(body: JsonObject): void {
  if (!isJsonObject(body.output_config)) return;
  const { effort: _dropped, ...rest } = body.output_config;
  if (Object.keys(rest).length === 0) delete body.output_config;
  else body.output_config = rest;
}

/** The client's `display` choice survives; the rest of its thinking setting is the gateway's. */
function display(body: JsonObject): JsonObject {
  return isJsonObject(body.thinking) && typeof body.thinking.display === "string" ? { display: body.thinking.display } : {};
}

function setManualBudget(body: JsonObject, effort: Exclude<Effort, "off">, model: ModelConfig): EffortResult {
  const requested = typeof body.max_tokens === "number" ? body.max_tokens : MIN_BUDGET;
  let budget = THINKING_BUDGETS[effort];
  let maxTokens = requested;
  if (requested <= budget) {
    // Keep the client's answer room on top of the budget, within the model's output limit;
    // where the limit is too tight, the budget gives way first.
    maxTokens = Math.min(model.maxOutputTokens, budget + Math.max(requested, 1));
    budget = Math.min(budget, Math.max(MIN_BUDGET, maxTokens - requested));
  }
  if (budget >= maxTokens) {
    body.thinking = { type: "disabled" };
    return { effort: "off", warnings: [`thinking disabled: max_tokens ${requested} leaves no room for a ${MIN_BUDGET}-token budget`] };
  }
  const warnings: string[] = [];
  if (maxTokens !== requested) {
    body.max_tokens = maxTokens;
    warnings.push(`max_tokens raised from ${requested} to ${maxTokens} to fit a thinking budget of ${budget}`);
  }
  body.thinking = { type: "enabled", budget_tokens: budget, ...display(body) };
  return { effort, warnings };
}

/**
 * Sets a Messages request's thinking from the gateway's effort, replacing whatever the client
 * asked for (`thinking`, `output_config.effort`). Mutates `body`, which the gateway owns.
 */
export function setMessagesEffort(body: JsonObject, wanted: Effort, model: ModelConfig): EffortResult {
  removeOutputEffort(body);
  if (model.thinking === "none") {
    delete body.thinking;
    return { effort: "off", warnings: [] };
  }
  const effort = clampEffort(wanted, model.efforts);
  if (effort === "off") {
    body.thinking = { type: "disabled" };
    return { effort, warnings: [] };
  }
  if (model.thinking === "manual") return setManualBudget(body, effort, model);
  body.thinking = { type: "adaptive", ...display(body) };
  body.output_config = { ...(isJsonObject(body.output_config) ? body.output_config : {}), effort };
  return { effort, warnings: [] };
}
