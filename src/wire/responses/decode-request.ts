import type { TextPart } from "../../canonical/content-part.ts";
import type { Converted } from "../../canonical/converted.ts";
import type { Effort } from "../../canonical/effort.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CanonicalRequest, ResponseFormat, Sampling } from "../../canonical/request.ts";
import { decodeInput, type DecodedInput } from "./decode-input.ts";
import { readInputParts } from "./read-input-parts.ts";
import { decodeToolChoice, decodeTools } from "./decode-tools.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** Top-level fields read into canonical places; everything else goes to `extra` by wire name. */
const CONSUMED = new Set([
  "model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "max_output_tokens", "temperature",
  "top_p", "text", "stream", "user", "safety_identifier", "metadata", "reasoning", "previous_response_id",
]);

const EFFORTS: Readonly<Record<string, Effort>> = {
  none: "off", minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "max", max: "max",
};

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
  const system: TextPart[] = typeof body.instructions === "string" && body.instructions !== "" ? [{ type: "text", text: body.instructions }] : [];
  let conversation: DecodedInput;
  if (typeof body.input === "string") {
    const parts = readInputParts(body.input, "input", warnings);
    conversation = { system, messages: parts.length > 0 ? [{ role: "user", content: parts }] : [] };
  } else if (Array.isArray(body.input)) conversation = decodeInput(body.input, system, warnings);
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
