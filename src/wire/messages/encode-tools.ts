import type { FunctionTool, Tool, ToolChoice } from "../../canonical/request.ts";
import { writeCacheControl } from "./read-fields.ts";
import type { Warn } from "./encode-content.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** The API requires an object schema at the top of `input_schema`. */
function inputSchema(schema: JsonObject): JsonObject {
  return schema.type === undefined ? { type: "object", ...schema } : schema;
}

function encodeFunction(tool: FunctionTool): JsonObject {
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: inputSchema(tool.inputSchema),
    ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    ...writeCacheControl(tool.cacheControl),
  };
}

/** A function definition held in another format's builtin tool (flat or Chat-nested), if it has one. */
function functionIn(raw: JsonObject): JsonObject | null {
  const inner = isJsonObject(raw.function) ? raw.function : raw;
  const schema = isJsonObject(inner.parameters) ? inner.parameters : isJsonObject(inner.input_schema) ? inner.input_schema : null;
  if (typeof inner.name !== "string" || !schema) return null;
  return {
    name: inner.name,
    ...(typeof inner.description === "string" ? { description: inner.description } : {}),
    input_schema: inputSchema(schema),
  };
}

/**
 * Another format's non-function tool: a namespace is flattened into its function tools, a tool
 * with a name and a schema becomes a function tool, anything else is dropped — each reported.
 */
function flattenBuiltin(tool: Extract<Tool, { kind: "builtin" }>, warn: Warn): JsonObject[] {
  const label = tool.name ?? tool.type;
  if (tool.type === "namespace" && Array.isArray(tool.raw.tools)) {
    const inner = tool.raw.tools.flatMap((item) => {
      const fn = isJsonObject(item) ? functionIn(item) : null;
      return fn ? [fn] : [];
    });
    warn(`namespace tool ${label} flattened into ${inner.length} function tool(s)`);
    return inner;
  }
  const fn = functionIn(tool.raw);
  warn(fn ? `${tool.type} tool ${label} sent as a function tool` : `${tool.type} tool ${label} dropped (no Messages equivalent)`);
  return fn ? [fn] : [];
}

export function encodeTools(tools: readonly Tool[], warn: Warn): JsonObject[] {
  return tools.flatMap((tool) => {
    if (tool.kind === "function") return [encodeFunction(tool)];
    // A Messages server tool from a Messages client goes through as the client defined it.
    if (tool.format === "messages") return [tool.raw];
    return flattenBuiltin(tool, warn);
  });
}

/** Canonical choice + parallel flag → Messages `tool_choice` (`required` is `any`; `none` takes no flag). */
export function encodeToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): JsonObject | undefined {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return parallel === false ? { type: "auto", ...disable } : undefined;
    case "auto":
      return { type: "auto", ...disable };
    case "required":
      return { type: "any", ...disable };
    case "tool":
      return { type: "tool", name: choice.name, ...disable };
    case "none":
      return { type: "none" };
    default: {
      const unreachable: never = choice;
      return unreachable;
    }
  }
}
