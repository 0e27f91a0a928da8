import { countChars, countToolChars } from "../count-chars.ts";
import { measureUsage } from "../measure-usage.ts";
import type { ReadResult, SimInput, SimTool, SimToolChoice } from "../types.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

export interface MessagesInput extends SimInput {
  stream: boolean;
  /** `thinking.display: "omitted"` → thinking blocks with empty text (signature still present). */
  omitThinking: boolean;
  messages: Record<string, unknown>[];
}

/** Text of a string content or of the text blocks of a block array. */
export function blockText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) if (isJsonObject(block) && block.type === "text" && typeof block.text === "string") parts.push(block.text);
  return parts.join("\n");
}

function readTools(raw: unknown): SimTool[] {
  if (!Array.isArray(raw)) return [];
  const tools: SimTool[] = [];
  for (const tool of raw) {
    // Server tools (web search, code execution…) have a versioned `type` and no input_schema.
    if (!isJsonObject(tool) || typeof tool.name !== "string" || (tool.type !== undefined && tool.type !== "custom" && !("input_schema" in tool))) continue;
    tools.push({ name: tool.name, description: typeof tool.description === "string" ? tool.description : undefined, schema: tool.input_schema });
  }
  return tools;
}

function readToolChoice(raw: unknown): { choice: SimToolChoice; parallel: boolean } {
  if (!isJsonObject(raw)) return { choice: { kind: "auto" }, parallel: true };
  const parallel = raw.disable_parallel_tool_use !== true;
  if (raw.type === "any") return { choice: { kind: "any" }, parallel };
  if (raw.type === "none") return { choice: { kind: "none" }, parallel };
  if (raw.type === "tool" && typeof raw.name === "string") return { choice: { kind: "tool", name: raw.name }, parallel };
  return { choice: { kind: "auto" }, parallel };
}

/** Effort when thinking is on: `output_config.effort`, else a manual budget mapped like the gateway does. */
function readEffort(body: Record<string, unknown>): string | null {
  const thinking = body.thinking;
  if (!isJsonObject(thinking) || (thinking.type !== "enabled" && thinking.type !== "adaptive")) return null;
  const config = body.output_config;
  if (isJsonObject(config) && typeof config.effort === "string") return config.effort;
  if (thinking.type === "enabled" && typeof thinking.budget_tokens === "number") {
    const budget = thinking.budget_tokens;
    return budget < 2048 ? "low" : budget < 8192 ? "medium" : budget < 24576 ? "high" : "max";
  }
  return "high";
}

function hasCacheControl(message: Record<string, unknown>): boolean {
  return Array.isArray(message.content) && message.content.some((block) => isJsonObject(block) && isJsonObject(block.cache_control));
}

function lastToolResult(message: Record<string, unknown> | undefined): string | null {
  if (message?.role !== "user" || !Array.isArray(message.content)) return null;
  for (const block of message.content) {
    if (isJsonObject(block) && block.type === "tool_result") return blockText(block.content);
  }
  return null;
}

function readMessages(raw: unknown): ReadResult<Record<string, unknown>[]> {
  if (!Array.isArray(raw)) return { ok: false, message: "messages: Field required" };
  for (const [i, message] of raw.entries()) {
    if (!isJsonObject(message)) return { ok: false, message: `messages.${i}: Input should be a valid dictionary` };
    if (message.role !== "user" && message.role !== "assistant" && message.role !== "system") {
      return { ok: false, message: `messages.${i}.role: Input should be 'user' or 'assistant'` };
    }
    if (typeof message.content !== "string" && !Array.isArray(message.content)) {
      return { ok: false, message: `messages.${i}.content: Field required` };
    }
  }
  return { ok: true, value: raw as Record<string, unknown>[] };
}

/** Reads a Messages (or count_tokens) body; `needsMaxTokens` is false for count_tokens. */
export function readMessagesRequest(body: unknown, seed: bigint, needsMaxTokens: boolean): ReadResult<MessagesInput> {
  if (!isJsonObject(body)) return { ok: false, message: "body: Input should be a valid dictionary" };
  if (typeof body.model !== "string" || body.model === "") return { ok: false, message: "model: Field required" };
  const maxTokens = body.max_tokens;
  if (needsMaxTokens && (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 0)) {
    return { ok: false, message: "max_tokens: Field required" };
  }
  const read = readMessages(body.messages);
  if (!read.ok) return read;
  const messages = read.value;
  const last = messages[messages.length - 1];
  // Claude Code appends a mid-conversation `system` message after the user turn; the newest
  // conversation message is what the answer reacts to.
  const newest = messages.findLast((message) => message.role !== "system");
  const tools = readTools(body.tools);
  const { choice, parallel } = readToolChoice(body.tool_choice);
  const prefixChars =
    countChars(body.system) + countToolChars(tools) + messages.slice(0, -1).reduce((sum, message) => sum + countChars(message), 0);
  const conversation = messages.filter((message) => message.role !== "system").length;
  const lastCached = last !== undefined && (hasCacheControl(last) || isJsonObject(body.cache_control));
  const thinking = body.thinking;
  return {
    ok: true,
    value: {
      model: body.model,
      seed,
      userText: newest?.role === "user" ? blockText(newest.content) : "",
      toolResult: lastToolResult(newest),
      tools,
      toolChoice: choice,
      parallelTools: parallel,
      maxTokens: typeof maxTokens === "number" ? maxTokens : null,
      stop: Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((s): s is string => typeof s === "string") : [],
      effort: readEffort(body),
      usage: measureUsage(prefixChars, last ? countChars(last) : 0, conversation, lastCached),
      stream: body.stream === true,
      omitThinking: isJsonObject(thinking) && thinking.display === "omitted",
      messages,
    },
  };
}
