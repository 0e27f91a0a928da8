import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { ResponseFormat, Tool, ToolChoice } from "../../canonical/request.ts";
import { readCacheControl } from "./decode-content.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

const EMPTY_SCHEMA = { type: "object", properties: {} } as const;

/** Chat `tools` → canonical tools; non-function tools (`custom` …) are kept as builtin for the same format. */
export function decodeTools(raw: unknown): Tool[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest("`tools`: expected an array", "tools");
  return raw.map((tool, i): Tool => {
    const path = `tools[${i}]`;
    if (!isJsonObject(tool) || typeof tool.type !== "string") throw invalidRequest(`\`${path}.type\`: field required`, `${path}.type`);
    if (tool.type !== "function") {
      const inner = tool[tool.type];
      const name = isJsonObject(inner) && typeof inner.name === "string" ? inner.name : undefined;
      return { kind: "builtin", format: "chat", type: tool.type, ...(name ? { name } : {}), raw: tool };
    }
    const fn = tool.function;
    if (!isJsonObject(fn) || typeof fn.name !== "string") throw invalidRequest(`\`${path}.function.name\`: field required`, `${path}.function.name`);
    if (fn.parameters !== undefined && fn.parameters !== null && !isJsonObject(fn.parameters)) {
      throw invalidRequest(`\`${path}.function.parameters\`: expected an object`, `${path}.function.parameters`);
    }
    const cacheControl = readCacheControl(tool.cache_control);
    return {
      kind: "function",
      name: fn.name,
      ...(typeof fn.description === "string" ? { description: fn.description } : {}),
      // Omitted parameters mean a function without arguments.
      inputSchema: isJsonObject(fn.parameters) ? fn.parameters : EMPTY_SCHEMA,
      ...(typeof fn.strict === "boolean" ? { strict: fn.strict } : {}),
      ...(cacheControl ? { cacheControl } : {}),
    };
  });
}

/** Chat `tool_choice` → canonical; `allowed_tools` keeps only its mode (the subset has no canonical place). */
export function decodeToolChoice(raw: unknown, warnings: string[]): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === "auto" || raw === "none" || raw === "required") return { type: raw };
  if (isJsonObject(raw)) {
    const inner = raw.type === "function" || raw.type === "custom" ? raw[raw.type] : undefined;
    if (isJsonObject(inner) && typeof inner.name === "string") return { type: "tool", name: inner.name };
    if (raw.type === "allowed_tools" && isJsonObject(raw.allowed_tools)) {
      warnings.push("tool_choice.allowed_tools: the allowed subset is not carried over; only its mode is kept");
      return { type: raw.allowed_tools.mode === "required" ? "required" : "auto" };
    }
  }
  throw invalidRequest("`tool_choice`: expected 'none', 'auto', 'required' or a named function", "tool_choice");
}

/** Chat `response_format` → canonical structured-output request. */
export function decodeResponseFormat(raw: unknown): ResponseFormat | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (isJsonObject(raw) && (raw.type === "text" || raw.type === "json_object")) return { type: raw.type };
  if (isJsonObject(raw) && raw.type === "json_schema" && isJsonObject(raw.json_schema) && typeof raw.json_schema.name === "string") {
    const spec = raw.json_schema;
    return {
      type: "json_schema",
      name: spec.name as string,
      schema: isJsonObject(spec.schema) ? spec.schema : {},
      ...(typeof spec.description === "string" ? { description: spec.description } : {}),
      ...(typeof spec.strict === "boolean" ? { strict: spec.strict } : {}),
    };
  }
  throw invalidRequest("`response_format`: expected {type: 'text' | 'json_object' | 'json_schema', …}", "response_format");
}
