import type { Converted } from "../../canonical/converted.ts";
import type { ContentPart, TextPart } from "../../canonical/content-part.ts";
import { createDecodeOnce } from "../create-decode-once.ts";
import type { Effort } from "../../canonical/effort.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CanonicalMessage, CanonicalRequest, ResponseFormat, Sampling } from "../../canonical/request.ts";
import { decodeBlock, decodeContent, type Warn } from "./decode-content.ts";
import { decodeToolChoice, decodeTools } from "./decode-tools.ts";
import { FieldPath, objectAt, optionalNumber, stringAt } from "./read-fields.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** Top-level fields read into canonical places; everything else goes to `extra` by wire name. */
const READ_FIELDS = new Set([
  "model",
  "max_tokens",
  "messages",
  "system",
  "stream",
  "tools",
  "tool_choice",
  "stop_sequences",
  "temperature",
  "top_p",
  "top_k",
  "metadata",
  "thinking",
  "output_config",
]);

function decodeSystem(value: unknown, warn: Warn): TextPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return value === "" ? [] : [{ type: "text", text: value }];
  if (!Array.isArray(value)) throw invalidRequest("`system`: expected a string or an array", "system");
  return value.map((item, i) => {
    const part = decodeBlock(item, `system[${i}]`, warn);
    if (part?.type !== "text") throw invalidRequest(`\`system[${i}].type\`: expected "text"`, `system[${i}].type`);
    return part;
  });
}

/** Text parts of an instruction message; other blocks have no place in a system prompt. */
function instructionText(message: CanonicalMessage, field: string): TextPart[] {
  return message.content.map((part, i) => {
    if (part.type !== "text") throw invalidRequest(`\`${field}.content[${i}].type\`: expected "text" in a system message`, `${field}.content[${i}].type`);
    return part;
  });
}

/** Each message of a conversation sent again (frozen by the parse memo) is decoded once. */
const decodeOnce = createDecodeOnce<ContentPart[]>();

/**
 * A message's content decoded (and kept, when the message is shared): a function of its own, so the
 * closure and the scope it captures are made only here, for a message not decoded before.
 */
function decodeMessageContent(raw: JsonObject, field: FieldPath, warn: Warn): ContentPart[] {
  return decodeOnce(raw, (warnings) => decodeContent(raw.content, new FieldPath(field, "content"), (w) => void warnings.push(w)), warn);
}

/**
 * A user or assistant message whose content was kept (a shared message, decoded without warnings),
 * kept whole and frozen beside it: a conversation sent again costs a lookup a message, not two
 * new objects.
 */
const keptMessages = new WeakMap<object, CanonicalMessage>();

/**
 * Leading system messages (before any user or assistant turn) join the top-level system prompt;
 * later ones keep their place in the history as `system` messages.
 */
function decodeMessages(value: unknown, system: TextPart[], warn: Warn): CanonicalMessage[] {
  if (!Array.isArray(value)) throw invalidRequest("`messages`: expected an array", "messages");
  const messages: CanonicalMessage[] = [];
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    const kept = typeof item === "object" && item !== null ? keptMessages.get(item) : undefined;
    if (kept !== undefined) {
      messages.push(kept);
      continue;
    }
    // Named only when an error names it: a long conversation has hundreds of messages.
    const field = new FieldPath("messages", i);
    const raw = objectAt(item, field);
    const role = stringAt(raw.role, field, "role");
    if (role !== "user" && role !== "assistant" && role !== "system") {
      throw invalidRequest(`\`${String(field)}.role\`: expected "user", "assistant" or "system"`, `${String(field)}.role`);
    }
    const content = decodeOnce.known(raw) ?? decodeMessageContent(raw, field, warn);
    const message: CanonicalMessage = { role, content };
    if (role !== "system") {
      messages.push(message);
      if (decodeOnce.known(raw) === content) keptMessages.set(raw, Object.freeze(message));
    } else if (messages.length === 0) system.push(...instructionText(message, String(field)));
    else messages.push({ role, content: instructionText(message, String(field)) });
  }
  return messages;
}

const OUTPUT_EFFORTS: Readonly<Record<string, Effort>> = { low: "low", medium: "medium", high: "high", xhigh: "max", max: "max" };

/** The effort the client asked for, on the gateway scale (wire-formats §3.4 reverse mapping). */
function clientEffort(thinking: unknown, outputConfig: JsonObject | undefined): Effort | undefined {
  const asked = outputConfig && typeof outputConfig.effort === "string" ? OUTPUT_EFFORTS[outputConfig.effort] : undefined;
  if (!isJsonObject(thinking)) return asked;
  if (thinking.type === "disabled") return "off";
  if (thinking.type === "enabled" && typeof thinking.budget_tokens === "number") {
    const budget = thinking.budget_tokens;
    return budget < 2048 ? "low" : budget < 8192 ? "medium" : budget < 24576 ? "high" : "max";
  }
  // Adaptive thinking without an explicit effort runs at the API default, high.
  return asked ?? (thinking.type === "adaptive" ? "high" : undefined);
}

function decodeResponseFormat(outputConfig: JsonObject | undefined): ResponseFormat | undefined {
  if (!outputConfig || outputConfig.format === undefined || outputConfig.format === null) return undefined;
  const format = objectAt(outputConfig.format, "output_config.format");
  if (format.type !== "json_schema") throw invalidRequest('`output_config.format.type`: expected "json_schema"', "output_config.format.type");
  // Messages schemas carry no name; OpenAI formats require one.
  return { type: "json_schema", name: "response", schema: objectAt(format.schema, "output_config.format.schema") };
}

function decodeSampling(body: JsonObject): Sampling {
  const temperature = optionalNumber(body.temperature, "temperature");
  const topP = optionalNumber(body.top_p, "top_p");
  const topK = optionalNumber(body.top_k, "top_k");
  const sampling: { -readonly [K in keyof Sampling]: Sampling[K] } = {};
  if (temperature !== undefined) sampling.temperature = temperature;
  if (topP !== undefined) sampling.topP = topP;
  if (topK !== undefined) sampling.topK = topK;
  return sampling;
}

function decodeStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRequest("`stop_sequences`: expected an array", "stop_sequences");
  return value.map((item, i) => stringAt(item, `stop_sequences[${i}]`));
}

/** Fields with no canonical place, by wire name; `output_config` keeps only what was not read. */
function collectExtra(body: JsonObject, outputConfig: JsonObject | undefined): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  // for…in, not Object.entries: no pair array per member of every request's body.
  for (const key in body) if (!READ_FIELDS.has(key)) extra[key] = body[key];
  if (outputConfig) {
    const { effort: _effort, format: _format, ...rest } = outputConfig;
    if (Object.keys(rest).length > 0) extra.output_config = rest;
  }
  return extra;
}

/** A Messages request body (already checked against the wire schema) → the canonical request. */
export function decodeMessagesRequest(body: JsonObject): Converted<CanonicalRequest> {
  const warnings = new Set<string>();
  const warn: Warn = (message) => void warnings.add(message);
  const system = decodeSystem(body.system, warn);
  const messages = decodeMessages(body.messages, system, warn);
  const outputConfig = body.output_config === undefined || body.output_config === null ? undefined : objectAt(body.output_config, "output_config");
  const metadata = body.metadata === undefined || body.metadata === null ? undefined : objectAt(body.metadata, "metadata");
  const user = metadata && typeof metadata.user_id === "string" ? metadata.user_id : undefined;
  const maxTokens = optionalNumber(body.max_tokens, "max_tokens");
  const effort = clientEffort(body.thinking, outputConfig);
  const responseFormat = decodeResponseFormat(outputConfig);
  const request: CanonicalRequest = {
    system,
    messages,
    tools: decodeTools(body.tools, warn),
    ...decodeToolChoice(body.tool_choice),
    ...(maxTokens !== undefined ? { maxOutputTokens: maxTokens } : {}),
    sampling: decodeSampling(body),
    stop: decodeStop(body.stop_sequences),
    ...(responseFormat ? { responseFormat } : {}),
    stream: body.stream === true,
    ...(user !== undefined ? { user } : {}),
    ...(effort !== undefined ? { clientEffort: effort } : {}),
    extra: collectExtra(body, outputConfig),
  };
  return { value: request, warnings: [...warnings] };
}
