import type { ResponseFormat, Tool, ToolChoice } from "../../canonical/request.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** The schema a builtin tool's raw definition carries, under any of the three formats' field names. */
function builtinSchema(raw: JsonObject): JsonObject | undefined {
  for (const key of ["input_schema", "parameters"]) if (isJsonObject(raw[key])) return raw[key] as JsonObject;
  return undefined;
}

/** A function inside a tool group (Responses `namespace`): flat Responses shape or nested Chat shape. */
function innerFunction(raw: unknown): JsonObject | null {
  if (!isJsonObject(raw) || raw.type !== "function") return null;
  const nested = raw.function;
  const fn = isJsonObject(nested) ? nested : raw;
  if (typeof fn.name !== "string") return null;
  const description = typeof fn.description === "string" ? { description: fn.description } : {};
  return { type: "function", function: { name: fn.name, ...description, parameters: builtinSchema(fn) ?? { type: "object", properties: {} } } };
}

/**
 * Canonical tools → Chat `tools`. A builtin tool of another format becomes a function when it has
 * a name and a schema, a tool group gives its functions, anything else is dropped; always with a warning.
 */
export function encodeTools(tools: readonly Tool[], warn: (w: string) => void): JsonObject[] {
  const out: JsonObject[] = [];
  for (const tool of tools) {
    if (tool.kind === "function") {
      if (tool.name.length > 64) warn(`tool ${tool.name}: name longer than the 64 characters Chat Completions allows`);
      const fn: JsonObject = { name: tool.name, parameters: tool.inputSchema };
      if (tool.description !== undefined) fn.description = tool.description;
      if (tool.strict !== undefined) fn.strict = tool.strict;
      out.push({ type: "function", function: fn });
      continue;
    }
    if (Array.isArray(tool.raw.tools)) {
      const inner = (tool.raw.tools as unknown[]).map(innerFunction).filter((t): t is JsonObject => t !== null);
      warn(`${tool.type} tool${tool.name ? ` ${tool.name}` : ""} flattened into ${inner.length} plain functions: Chat Completions has no tool groups`);
      out.push(...inner);
      continue;
    }
    const schema = builtinSchema(tool.raw);
    if (tool.name && schema) {
      warn(`${tool.type} tool ${tool.name} sent as a plain function: Chat Completions has no such tool type`);
      const description = typeof tool.raw.description === "string" ? { description: tool.raw.description } : {};
      out.push({ type: "function", function: { name: tool.name, ...description, parameters: schema } });
    } else {
      warn(`${tool.type} tool${tool.name ? ` ${tool.name}` : ""} dropped: Chat Completions cannot take it`);
    }
  }
  return out;
}

/** Canonical tool choice → Chat `tool_choice`; a forced tool that was dropped falls back to `required`. */
export function encodeToolChoice(choice: ToolChoice, toolNames: ReadonlySet<string>, warn: (w: string) => void): unknown {
  if (choice.type !== "tool") return choice.type;
  if (toolNames.has(choice.name)) return { type: "function", function: { name: choice.name } };
  warn(`tool_choice names ${choice.name}, which is not among the tools sent; asking for any tool instead`);
  return "required";
}

/** Canonical structured-output request → Chat `response_format`. */
export function encodeResponseFormat(format: ResponseFormat): JsonObject {
  if (format.type !== "json_schema") return { type: format.type };
  const spec: JsonObject = { name: format.name, schema: format.schema };
  if (format.description !== undefined) spec.description = format.description;
  if (format.strict !== undefined) spec.strict = format.strict;
  return { type: "json_schema", json_schema: spec };
}
