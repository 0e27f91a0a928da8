import { countChars, countToolChars } from "../count-chars.ts";
import { measureUsage } from "../measure-usage.ts";
import type { ReadResult, SimInput, SimTool, SimToolChoice } from "../types.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

export interface ChatInput extends SimInput {
  stream: boolean;
  includeUsage: boolean;
  /** `n`: how many choices to generate (1–128). */
  choices: number;
}

const missing = (param: string): ReadResult<never> => ({
  ok: false,
  message: `Missing required parameter: '${param}'.`,
  param,
  code: "missing_required_parameter",
});

/** Text of a Chat message content: a string or text parts. */
function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) if (isJsonObject(part) && part.type === "text" && typeof part.text === "string") parts.push(part.text);
  return parts.join("\n");
}

function readTools(raw: unknown): SimTool[] {
  if (!Array.isArray(raw)) return [];
  const tools: SimTool[] = [];
  for (const tool of raw) {
    if (!isJsonObject(tool) || tool.type !== "function" || !isJsonObject(tool.function) || typeof tool.function.name !== "string") continue;
    const fn = tool.function;
    tools.push({ name: fn.name as string, description: typeof fn.description === "string" ? fn.description : undefined, schema: fn.parameters });
  }
  return tools;
}

function readToolChoice(raw: unknown): SimToolChoice {
  if (raw === "none") return { kind: "none" };
  if (raw === "required") return { kind: "any" };
  if (isJsonObject(raw)) {
    if (raw.type === "function" && isJsonObject(raw.function) && typeof raw.function.name === "string") return { kind: "tool", name: raw.function.name };
    if (raw.type === "allowed_tools" && isJsonObject(raw.allowed_tools) && raw.allowed_tools.mode === "required") return { kind: "any" };
  }
  return { kind: "auto" };
}

const isInstruction = (message: Record<string, unknown>): boolean => message.role === "system" || message.role === "developer";

/**
 * The first of the trailing `role: "tool"` messages, when the conversation ends with tool results
 * (instructions placed after them, as a translated mid-conversation system message, do not count).
 */
function trailingToolResult(messages: readonly Record<string, unknown>[]): string | null {
  let i = messages.length - 1;
  while (i >= 0 && messages[i] !== undefined && isInstruction(messages[i] as Record<string, unknown>)) i--;
  let first: Record<string, unknown> | undefined;
  for (; i >= 0 && messages[i]?.role === "tool"; i--) first = messages[i];
  return first ? partsText(first.content) : null;
}

function readStop(raw: unknown): string[] {
  if (typeof raw === "string") return [raw];
  return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === "string") : [];
}

/** Reads a Chat Completions body. */
export function readChatRequest(body: unknown, seed: bigint): ReadResult<ChatInput> {
  if (!isJsonObject(body)) return { ok: false, message: "The request body must be a JSON object." };
  if (typeof body.model !== "string" || body.model === "") return missing("model");
  if (!Array.isArray(body.messages)) return missing("messages");
  const messages: Record<string, unknown>[] = [];
  for (const [i, message] of body.messages.entries()) {
    if (!isJsonObject(message) || typeof message.role !== "string") {
      return { ok: false, message: `Invalid value for 'messages[${i}]': expected a message object with a 'role'.`, param: `messages[${i}]` };
    }
    messages.push(message);
  }
  const choices = body.n ?? 1;
  if (typeof choices !== "number" || !Number.isInteger(choices)) {
    return { ok: false, message: `Invalid type for 'n': expected an integer, but got ${JSON.stringify(choices)} instead.`, param: "n", code: "invalid_type" };
  }
  if (choices < 1 || choices > 128) {
    return { ok: false, message: `Invalid 'n': expected a value between 1 and 128, but got ${choices} instead.`, param: "n", code: "integer_out_of_range" };
  }
  const last = messages[messages.length - 1];
  const newest = messages.findLast((message) => !isInstruction(message));
  const tools = readTools(body.tools);
  const prefixChars = countToolChars(tools) + messages.slice(0, -1).reduce((sum, message) => sum + countChars(message), 0);
  const conversation = messages.filter((m) => !isInstruction(m)).length;
  const maxTokens = typeof body.max_completion_tokens === "number" ? body.max_completion_tokens : body.max_tokens;
  const effort = typeof body.reasoning_effort === "string" && body.reasoning_effort !== "none" ? body.reasoning_effort : null;
  return {
    ok: true,
    value: {
      model: body.model,
      seed,
      userText: newest?.role === "user" ? partsText(newest.content) : "",
      toolResult: trailingToolResult(messages),
      tools,
      toolChoice: readToolChoice(body.tool_choice),
      parallelTools: body.parallel_tool_calls !== false,
      maxTokens: typeof maxTokens === "number" ? maxTokens : null,
      stop: readStop(body.stop),
      effort,
      usage: measureUsage(prefixChars, last ? countChars(last) : 0, conversation, false),
      stream: body.stream === true,
      includeUsage: isJsonObject(body.stream_options) && body.stream_options.include_usage === true,
      choices,
    },
  };
}
