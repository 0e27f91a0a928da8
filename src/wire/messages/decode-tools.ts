import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { Tool, ToolChoice } from "../../canonical/request.ts";
import type { Warn } from "./decode-content.ts";
import { objectAt, optionalString, readCacheControl, stringAt } from "./read-fields.ts";

/** Custom-tool fields with no place in other formats; `eager_input_streaming` is not listed because every target streams arguments anyway. */
const UNCARRIED_TOOL_FIELDS = ["input_examples", "defer_loading", "allowed_callers"] as const;

function decodeTool(item: unknown, field: string, warn: Warn): Tool {
  const tool = objectAt(item, field);
  if (tool.type !== undefined && tool.type !== null && tool.type !== "custom") {
    const type = stringAt(tool.type, `${field}.type`);
    const name = optionalString(tool.name, `${field}.name`);
    return { kind: "builtin", format: "messages", type, ...(name !== undefined ? { name } : {}), raw: tool };
  }
  const name = stringAt(tool.name, `${field}.name`);
  const inputSchema = objectAt(tool.input_schema, `${field}.input_schema`);
  const description = optionalString(tool.description, `${field}.description`);
  const cacheControl = readCacheControl(tool.cache_control, `${field}.cache_control`);
  for (const key of UNCARRIED_TOOL_FIELDS) if (tool[key] !== undefined) warn(`tool ${key} dropped`);
  return {
    kind: "function",
    name,
    inputSchema,
    ...(description !== undefined ? { description } : {}),
    ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
    ...(cacheControl ? { cacheControl } : {}),
  };
}

export function decodeTools(value: unknown, warn: Warn): Tool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRequest("`tools`: expected an array", "tools");
  return value.map((item, i) => decodeTool(item, `tools[${i}]`, warn));
}

/** `tool_choice` → the canonical choice and whether parallel calls were turned off. */
export function decodeToolChoice(value: unknown): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (value === undefined || value === null) return {};
  const choice = objectAt(value, "tool_choice");
  const parallel = choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {};
  switch (choice.type) {
    case "auto":
      return { toolChoice: { type: "auto" }, ...parallel };
    case "any":
      return { toolChoice: { type: "required" }, ...parallel };
    case "none":
      return { toolChoice: { type: "none" } };
    case "tool":
      return { toolChoice: { type: "tool", name: stringAt(choice.name, "tool_choice.name") }, ...parallel };
    default:
      throw invalidRequest('`tool_choice.type`: expected "auto", "any", "tool" or "none"', "tool_choice.type");
  }
}
