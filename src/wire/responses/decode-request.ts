import type { ContentPart, RedactedThinkingPart, TextPart, ThinkingPart } from "../../canonical/content-part.ts";
import type { Converted } from "../../canonical/converted.ts";
import type { Effort } from "../../canonical/effort.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CanonicalMessage, CanonicalRequest, ResponseFormat, Sampling } from "../../canonical/request.ts";
import { packResponsesReasoning, unpackForeignThinking } from "../pack-reasoning.ts";
import { readInputParts, type InputPart } from "./read-input-parts.ts";
import { decodeToolChoice, decodeTools } from "./decode-tools.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { createDecodeOnce, type DecodeOnce } from "../create-decode-once.ts";

/** Top-level fields read into canonical places; everything else goes to `extra` by wire name. */
const CONSUMED = new Set([
  "model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "max_output_tokens", "temperature",
  "top_p", "text", "stream", "user", "safety_identifier", "metadata", "reasoning", "previous_response_id",
]);

const EFFORTS: Readonly<Record<string, Effort>> = {
  none: "off", minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "max", max: "max",
};

/** The message list being built: leading system/developer items go to `system`, consecutive same-role turns merge. */
interface Conversation {
  readonly system: TextPart[];
  readonly messages: CanonicalMessage[];
}

function addSystem(conversation: Conversation, parts: readonly ContentPart[], developer: boolean, at: string, warnings: string[]): void {
  const texts = parts.filter((part): part is TextPart => part.type === "text");
  if (texts.length < parts.length) warnings.push(`${at}: only text is kept in ${developer ? "developer" : "system"} messages`);
  if (conversation.messages.length === 0) conversation.system.push(...texts);
  else if (texts.length > 0) conversation.messages.push({ role: "system", content: texts, ...(developer ? { developer: true } : {}) });
}

function addTurn(conversation: Conversation, role: "user" | "assistant", parts: readonly ContentPart[]): void {
  if (parts.length === 0) return;
  const { messages } = conversation;
  const last = messages[messages.length - 1];
  if (last !== undefined && last.role === role) messages[messages.length - 1] = { role, content: [...last.content, ...parts] };
  else messages.push({ role, content: [...parts] });
}

function readReasoning(item: JsonObject, at: string): ThinkingPart | RedactedThinkingPart {
  const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content : undefined;
  const foreign = unpackForeignThinking(encrypted);
  if (foreign !== null) return "redacted" in foreign ? { type: "redacted_thinking", data: foreign.redacted } : { type: "thinking", ...foreign };
  if (typeof item.id !== "string") throw invalidRequest(`${at}.id must be a string`, `${at}.id`);
  const summary = Array.isArray(item.summary) ? item.summary : [];
  const text = summary
    .map((part) => (isJsonObject(part) && typeof part.text === "string" ? part.text : ""))
    .filter((part) => part !== "")
    .join("\n\n");
  return { type: "thinking", text, signature: packResponsesReasoning({ id: item.id, ...(encrypted !== undefined ? { encryptedContent: encrypted } : {}) }) };
}

function stringField(item: JsonObject, key: string, at: string): string {
  const value = item[key];
  if (typeof value !== "string") throw invalidRequest(`${at}.${key} must be a string`, `${at}.${key}`);
  return value;
}

/** The parts of each input item of a conversation sent again (frozen by the parse memo) are read once. */
const decodeContentOnce = createDecodeOnce<InputPart[]>();
const decodeOutputOnce = createDecodeOnce<InputPart[]>();

/**
 * An input item's parts read (and kept, when the item is shared). The closures live here, not in
 * readItem: an item decoded before is looked up first and makes none (nor the scope they capture).
 */
function decodeItemParts(once: DecodeOnce<InputPart[]>, item: JsonObject, value: unknown, at: string, warnings: string[]): InputPart[] {
  return once(item, (sink) => readInputParts(value, at, sink), (w) => void warnings.push(w));
}

function readItem(item: unknown, at: string, conversation: Conversation, warnings: string[]): void {
  if (!isJsonObject(item)) throw invalidRequest(`${at} must be an object`, at);
  const type = item.type ?? (typeof item.role === "string" ? "message" : undefined);
  switch (type) {
    case "message": {
      const role = item.role;
      const parts = decodeContentOnce.known(item) ?? decodeItemParts(decodeContentOnce, item, item.content, `${at}.content`, warnings);
      if (role === "system" || role === "developer") addSystem(conversation, parts, role === "developer", at, warnings);
      else if (role === "user" || role === "assistant") addTurn(conversation, role, parts);
      else throw invalidRequest(`${at}.role must be user, assistant, system or developer`, `${at}.role`);
      return;
    }
    case "function_call":
      addTurn(conversation, "assistant", [
        { type: "tool_call", id: stringField(item, "call_id", at), name: stringField(item, "name", at), arguments: stringField(item, "arguments", at) },
      ]);
      return;
    case "function_call_output": {
      const content = decodeOutputOnce.known(item) ?? decodeItemParts(decodeOutputOnce, item, item.output ?? "", `${at}.output`, warnings);
      addTurn(conversation, "user", [{ type: "tool_result", callId: stringField(item, "call_id", at), content, isError: false }]);
      return;
    }
    case "reasoning":
      addTurn(conversation, "assistant", [readReasoning(item, at)]);
      return;
    default:
      warnings.push(`${at}: input item type ${JSON.stringify(type)} cannot be translated and was dropped`);
  }
}

function readResponseFormat(text: unknown): ResponseFormat | undefined {
  if (!isJsonObject(text) || !isJsonObject(text.format)) return undefined;
  const format = text.format;
  if (format.type === "text" || format.type === "json_object") return { type: format.type };
  if (format.type !== "json_schema") throw invalidRequest("text.format.type must be text, json_object or json_schema", "text.format.type");
  if (typeof format.name !== "string" || !isJsonObject(format.schema)) {
    throw invalidRequest("text.format json_schema needs a name and a schema", "text.format");
  }
  return {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    ...(typeof format.description === "string" ? { description: format.description } : {}),
    ...(typeof format.strict === "boolean" ? { strict: format.strict } : {}),
  };
}

function readMetadata(raw: unknown): Record<string, string> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isJsonObject(raw)) throw invalidRequest("metadata must be an object of strings", "metadata");
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== "string") throw invalidRequest(`metadata.${key} must be a string`, `metadata.${key}`);
  }
  return raw as Record<string, string>;
}

function readSampling(body: JsonObject): Sampling {
  const sampling: { temperature?: number; topP?: number } = {};
  if (typeof body.temperature === "number") sampling.temperature = body.temperature;
  if (typeof body.top_p === "number") sampling.topP = body.top_p;
  return sampling;
}

/** What has no canonical place: other top-level fields, `reasoning` minus effort, `text` minus format. */
function readExtra(body: JsonObject): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!CONSUMED.has(key)) extra[key] = value;
  if (isJsonObject(body.reasoning)) {
    const { effort: _effort, ...rest } = body.reasoning;
    if (Object.keys(rest).length > 0) extra.reasoning = rest;
  }
  if (isJsonObject(body.text)) {
    const { format: _format, ...rest } = body.text;
    if (Object.keys(rest).length > 0) extra.text = rest;
  }
  if (typeof body.safety_identifier === "string" && typeof body.user === "string") extra.user = body.user;
  return extra;
}

/** A Responses request body (already checked against the schema) as a canonical request. */
export function decodeResponsesRequest(body: JsonObject): Converted<CanonicalRequest> {
  const warnings: string[] = [];
  const conversation: Conversation = { system: [], messages: [] };
  if (typeof body.instructions === "string" && body.instructions !== "") conversation.system.push({ type: "text", text: body.instructions });
  if (typeof body.input === "string") addTurn(conversation, "user", readInputParts(body.input, "input", warnings));
  else if (Array.isArray(body.input)) {
    for (const [i, item] of body.input.entries()) readItem(item, `input[${i}]`, conversation, warnings);
  }
  else throw invalidRequest("input must be a string or an array of items", "input");

  const effort = isJsonObject(body.reasoning) && typeof body.reasoning.effort === "string" ? EFFORTS[body.reasoning.effort] : undefined;
  const user = typeof body.safety_identifier === "string" ? body.safety_identifier : typeof body.user === "string" ? body.user : undefined;
  const toolChoice = decodeToolChoice(body.tool_choice, warnings);
  const responseFormat = readResponseFormat(body.text);
  const metadata = readMetadata(body.metadata);
  const request: CanonicalRequest = {
    system: conversation.system,
    messages: conversation.messages,
    tools: decodeTools(body.tools),
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(typeof body.parallel_tool_calls === "boolean" ? { parallelToolCalls: body.parallel_tool_calls } : {}),
    ...(typeof body.max_output_tokens === "number" ? { maxOutputTokens: body.max_output_tokens } : {}),
    sampling: readSampling(body),
    stop: [],
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    stream: body.stream === true,
    ...(user !== undefined ? { user } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    ...(effort !== undefined ? { clientEffort: effort } : {}),
    ...(typeof body.previous_response_id === "string" ? { previousResponseId: body.previous_response_id } : {}),
    extra: readExtra(body),
  };
  return { value: request, warnings };
}
