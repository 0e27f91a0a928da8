import { countChars, countToolChars } from "../count-chars.ts";
import { measureUsage } from "../measure-usage.ts";
import type { ReadResult, SimInput, SimTool, SimToolChoice } from "../types.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

export interface ResponsesInput extends SimInput {
  stream: boolean;
  /** `reasoning.summary` set → a summary_text part with the reasoning text. */
  summary: boolean;
  /** `include` has `reasoning.encrypted_content`. */
  encrypted: boolean;
  /** The request body, for the fields a Response echoes (tools, tool_choice, metadata…). */
  body: Record<string, unknown>;
}

const MIN_OUTPUT_TOKENS = 16;

const missing = (param: string): ReadResult<never> => ({
  ok: false,
  message: `Missing required parameter: '${param}'.`,
  param,
  code: "missing_required_parameter",
});

/** Text of a message content or a function_call_output output: a string or text parts. */
export function itemText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (isJsonObject(part) && (part.type === "input_text" || part.type === "output_text" || part.type === "text") && typeof part.text === "string") {
      parts.push(part.text);
    }
  }
  return parts.join("\n");
}

function readTools(raw: unknown): SimTool[] {
  if (!Array.isArray(raw)) return [];
  const tools: SimTool[] = [];
  for (const tool of raw) {
    if (!isJsonObject(tool) || tool.type !== "function" || typeof tool.name !== "string") continue;
    tools.push({ name: tool.name, description: typeof tool.description === "string" ? tool.description : undefined, schema: tool.parameters });
  }
  return tools;
}

function readToolChoice(raw: unknown): SimToolChoice {
  if (raw === "none") return { kind: "none" };
  if (raw === "required") return { kind: "any" };
  if (isJsonObject(raw)) {
    if (raw.type === "function" && typeof raw.name === "string") return { kind: "tool", name: raw.name };
    if (raw.type === "allowed_tools" && raw.mode === "required") return { kind: "any" };
  }
  return { kind: "auto" };
}

const isMessage = (item: Record<string, unknown>): boolean => item.type === "message" || (item.type === undefined && typeof item.role === "string");
const isInstruction = (item: Record<string, unknown>): boolean => isMessage(item) && (item.role === "system" || item.role === "developer");

/** The first of the trailing function_call_output items; instruction messages after them do not count. */
function trailingToolResult(items: readonly Record<string, unknown>[]): string | null {
  let i = items.length - 1;
  while (i >= 0 && items[i] !== undefined && isInstruction(items[i] as Record<string, unknown>)) i--;
  let first: Record<string, unknown> | undefined;
  for (; i >= 0 && items[i]?.type === "function_call_output"; i--) first = items[i];
  return first ? itemText(first.output) : null;
}

function readItems(input: unknown): ReadResult<Record<string, unknown>[]> {
  if (typeof input === "string") return { ok: true, value: [{ type: "message", role: "user", content: input }] };
  if (!Array.isArray(input)) return missing("input");
  for (const [i, item] of input.entries()) {
    if (!isJsonObject(item)) return { ok: false, message: `Invalid value for 'input[${i}]': expected an object.`, param: `input[${i}]` };
  }
  return { ok: true, value: input as Record<string, unknown>[] };
}

/** Reads a Responses body; `forCount` relaxes `input` for the input_tokens endpoint. */
export function readResponsesRequest(body: unknown, seed: bigint, forCount: boolean): ReadResult<ResponsesInput> {
  if (!isJsonObject(body)) return { ok: false, message: "The request body must be a JSON object." };
  if (!forCount && (typeof body.model !== "string" || body.model === "")) return missing("model");
  const read = forCount && body.input === undefined ? { ok: true as const, value: [] } : readItems(body.input);
  if (!read.ok) return read;
  const max = body.max_output_tokens;
  if (typeof max === "number" && max < MIN_OUTPUT_TOKENS) {
    return {
      ok: false,
      message: `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${max} instead.`,
      param: "max_output_tokens",
      code: "integer_below_min_value",
    };
  }
  const items = read.value;
  const last = items[items.length - 1];
  const newest = items.findLast((item) => !isInstruction(item));
  const tools = readTools(body.tools);
  const prefixChars = countChars(body.instructions) + countToolChars(tools) + items.slice(0, -1).reduce((sum, item) => sum + countChars(item), 0);
  const conversation = items.filter((item) => !isInstruction(item)).length;
  const reasoning = body.reasoning;
  const effort = isJsonObject(reasoning) && reasoning.effort !== "none" ? (typeof reasoning.effort === "string" ? reasoning.effort : "medium") : null;
  return {
    ok: true,
    value: {
      model: typeof body.model === "string" ? body.model : "",
      seed,
      userText: newest !== undefined && isMessage(newest) && newest.role === "user" ? itemText(newest.content) : "",
      toolResult: trailingToolResult(items),
      tools,
      toolChoice: readToolChoice(body.tool_choice),
      parallelTools: body.parallel_tool_calls !== false,
      maxTokens: typeof max === "number" ? max : null,
      stop: [],
      effort,
      usage: measureUsage(prefixChars, last ? countChars(last) : 0, conversation, false),
      stream: body.stream === true,
      summary: isJsonObject(reasoning) && typeof reasoning.summary === "string",
      encrypted: Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content"),
      body,
    },
  };
}
