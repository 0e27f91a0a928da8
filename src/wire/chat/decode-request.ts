import type { Converted } from "../../canonical/converted.ts";
import type { Effort } from "../../canonical/effort.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CanonicalRequest, Sampling } from "../../canonical/request.ts";
import { decodeMessages } from "./decode-messages.ts";
import { decodeResponseFormat, decodeToolChoice, decodeTools } from "./decode-tools.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

/** Top-level fields read into canonical places; everything else is kept in `extra` by wire name. */
const READ_FIELDS = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "presence_penalty",
  "frequency_penalty",
  "seed",
  "stop",
  "response_format",
  "user",
  "safety_identifier",
  "metadata",
  "reasoning_effort",
]);

/** OpenAI effort values → the gateway's scale (the router decides the effort; this is informational). */
const CLIENT_EFFORTS: Readonly<Record<string, Effort>> = {
  none: "off",
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "max",
  max: "max",
};

const num = (value: unknown, field: string): number | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number") throw invalidRequest(`\`${field}\`: expected a number`, field);
  return value;
};

function decodeSampling(body: Record<string, unknown>): Sampling {
  const fields: [keyof Sampling, string][] = [
    ["temperature", "temperature"],
    ["topP", "top_p"],
    ["presencePenalty", "presence_penalty"],
    ["frequencyPenalty", "frequency_penalty"],
    ["seed", "seed"],
  ];
  const sampling: Record<string, number> = {};
  for (const [key, wire] of fields) {
    const value = num(body[wire], wire);
    if (value !== undefined) sampling[key] = value;
  }
  return sampling;
}

function decodeStop(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === "string") return [raw];
  if (Array.isArray(raw) && raw.every((s) => typeof s === "string")) return raw;
  throw invalidRequest("`stop`: expected a string or an array of strings", "stop");
}

function decodeMetadata(raw: unknown, warnings: string[]): Record<string, string> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isJsonObject(raw)) throw invalidRequest("`metadata`: expected an object", "metadata");
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === "string") metadata[key] = value;
    else warnings.push(`metadata.${key}: only string values are carried over`);
  }
  return metadata;
}

/** A Chat Completions body (already checked against ChatRequestSchema) → the canonical request. */
export function decodeChatRequest(body: Record<string, unknown>): Converted<CanonicalRequest> {
  const warnings: string[] = [];
  if (!Array.isArray(body.messages)) throw invalidRequest("`messages`: field required", "messages");
  const { system, messages } = decodeMessages(body.messages, warnings);
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!READ_FIELDS.has(key)) extra[key] = value;
  if (typeof body.n === "number" && body.n > 1) warnings.push("n: only one choice is returned");
  const maxOutputTokens = num(body.max_completion_tokens, "max_completion_tokens") ?? num(body.max_tokens, "max_tokens");
  const toolChoice = decodeToolChoice(body.tool_choice, warnings);
  const responseFormat = decodeResponseFormat(body.response_format);
  const user = typeof body.safety_identifier === "string" ? body.safety_identifier : typeof body.user === "string" ? body.user : undefined;
  const metadata = decodeMetadata(body.metadata, warnings);
  const clientEffort = typeof body.reasoning_effort === "string" ? CLIENT_EFFORTS[body.reasoning_effort] : undefined;
  const stream = body.stream === true;
  const value: CanonicalRequest = {
    system,
    messages,
    tools: decodeTools(body.tools),
    ...(toolChoice ? { toolChoice } : {}),
    ...(typeof body.parallel_tool_calls === "boolean" ? { parallelToolCalls: body.parallel_tool_calls } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    sampling: decodeSampling(body),
    stop: decodeStop(body.stop),
    ...(responseFormat ? { responseFormat } : {}),
    stream,
    ...(stream ? { includeUsage: isJsonObject(body.stream_options) && body.stream_options.include_usage === true } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(metadata ? { metadata } : {}),
    ...(clientEffort ? { clientEffort } : {}),
    extra,
  };
  return { value, warnings };
}
