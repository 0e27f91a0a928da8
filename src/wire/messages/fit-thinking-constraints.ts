import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

const THINKING_ON: ReadonlySet<unknown> = new Set(["enabled", "adaptive"]);

/**
 * With thinking on, the Messages API refuses forced tool use and non-default sampling
 * (wire-formats §3.1, §3.4). Run after the effort setter: a forced `tool_choice` becomes `auto`
 * (keeping the parallel flag), and `temperature` other than 1, `top_k`, and `top_p` below 0.95 are
 * removed. Mutates `body`; returns what changed.
 */
export function fitThinkingConstraints(body: JsonObject): readonly string[] {
  if (!isJsonObject(body.thinking) || !THINKING_ON.has(body.thinking.type)) return [];
  const warnings: string[] = [];
  const choice = body.tool_choice;
  if (isJsonObject(choice) && (choice.type === "any" || choice.type === "tool")) {
    const { name: _name, ...rest } = choice;
    body.tool_choice = { ...rest, type: "auto" };
    warnings.push(`tool_choice ${String(choice.type)} relaxed to auto: forced tool use is not allowed with thinking`);
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    delete body.temperature;
    warnings.push("temperature dropped: only the default is allowed with thinking");
  }
  if (body.top_k !== undefined) {
    delete body.top_k;
    warnings.push("top_k dropped: not allowed with thinking");
  }
  if (typeof body.top_p === "number" && body.top_p < 0.95) {
    delete body.top_p;
    warnings.push("top_p dropped: values below 0.95 are not allowed with thinking");
  }
  return warnings;
}
