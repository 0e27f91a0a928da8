import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { JsonSchema, Tool, ToolChoice } from "../../canonical/request.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

const EMPTY_SCHEMA: JsonSchema = { type: "object", properties: {} };

/** Responses `tools`: flat function tools become function tools; every other type is kept raw as a builtin. */
export function decodeTools(raw: unknown): Tool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest("tools must be an array", "tools");
  return raw.map((tool, i): Tool => {
    const at = `tools[${i}]`;
    if (!isJsonObject(tool) || typeof tool.type !== "string") throw invalidRequest(`${at} must be an object with a type`, at);
    if (tool.type !== "function") {
      return { kind: "builtin", format: "responses", type: tool.type, ...(typeof tool.name === "string" ? { name: tool.name } : {}), raw: tool };
    }
    if (typeof tool.name !== "string" || tool.name === "") throw invalidRequest(`${at}.name must be a non-empty string`, `${at}.name`);
    return {
      kind: "function",
      name: tool.name,
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      inputSchema: isJsonObject(tool.parameters) ? tool.parameters : EMPTY_SCHEMA,
      ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
    };
  });
}

/** Responses `tool_choice`; choices the canonical model has no place for fall back with a warning. */
export function decodeToolChoice(raw: unknown, warnings: string[]): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === "auto" || raw === "none" || raw === "required") return { type: raw };
  if (!isJsonObject(raw) || typeof raw.type !== "string") throw invalidRequest("tool_choice is not a valid choice", "tool_choice");
  if ((raw.type === "function" || raw.type === "custom") && typeof raw.name === "string") return { type: "tool", name: raw.name };
  if (raw.type === "allowed_tools") {
    warnings.push("tool_choice allowed_tools: the tool subset is not carried over, only its mode");
    return { type: raw.mode === "required" ? "required" : "auto" };
  }
  warnings.push(`tool_choice of type ${JSON.stringify(raw.type)} is not carried over; auto is used`);
  return { type: "auto" };
}
