import type { Converted } from "../../canonical/converted.ts";
import type { CanonicalRequest, Sampling } from "../../canonical/request.ts";
import type { UpstreamRequestContext } from "../upstream-adapter.ts";
import { encodeMessages } from "./encode-messages.ts";
import { encodeResponseFormat, encodeToolChoice, encodeTools } from "./encode-tools.ts";
import type { JsonObject } from "../../canonical/json-object.ts";

/** The Chat API takes at most four stop strings. */
const MAX_STOP = 4;
/** OpenAI's limit on end-user ids (`user`, `safety_identifier`). */
const MAX_USER_ID = 64;

const SAMPLING_FIELDS: readonly [keyof Sampling, string][] = [
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["presencePenalty", "presence_penalty"],
  ["frequencyPenalty", "frequency_penalty"],
  ["seed", "seed"],
];

function setSampling(body: JsonObject, sampling: Sampling, warn: (w: string) => void): void {
  for (const [key, wire] of SAMPLING_FIELDS) if (sampling[key] !== undefined) body[wire] = sampling[key];
  if (sampling.topK !== undefined) warn("top_k dropped: Chat Completions has no such field");
}

function setTools(body: JsonObject, request: CanonicalRequest, ctx: UpstreamRequestContext, warn: (w: string) => void): void {
  if (request.tools.length === 0) return;
  if (!ctx.model.tools) {
    warn("tools dropped: the model does not accept tools");
    return;
  }
  const tools = encodeTools(request.tools, warn);
  if (tools.length === 0) return;
  body.tools = tools;
  if (request.toolChoice) {
    const names = new Set(tools.map((t) => (t.function as JsonObject).name as string));
    body.tool_choice = encodeToolChoice(request.toolChoice, names, warn);
  }
  // Meaningless (and refused by some servers) when no tool may be called.
  if (request.parallelToolCalls !== undefined && request.toolChoice?.type !== "none") body.parallel_tool_calls = request.parallelToolCalls;
}

function setLimits(body: JsonObject, request: CanonicalRequest, ctx: UpstreamRequestContext, warn: (w: string) => void): void {
  if (request.maxOutputTokens !== undefined) {
    const cap = ctx.model.maxOutputTokens;
    if (request.maxOutputTokens > cap) warn(`max output tokens lowered from ${request.maxOutputTokens} to the model's ${cap}`);
    body.max_completion_tokens = Math.min(request.maxOutputTokens, cap);
  }
  if (request.stop.length > 0) {
    if (request.stop.length > MAX_STOP) warn(`stop sequences beyond the first ${MAX_STOP} dropped: Chat Completions takes at most ${MAX_STOP}`);
    body.stop = request.stop.slice(0, MAX_STOP);
  }
}

function setIdentity(body: JsonObject, request: CanonicalRequest, warn: (w: string) => void): void {
  if (request.user !== undefined) {
    // Longer ids (Claude Code sends a JSON document) are refused; a digest keeps them distinct and stable.
    if (request.user.length > MAX_USER_ID) warn("user id longer than 64 characters sent as its SHA-256 digest");
    body.user = request.user.length > MAX_USER_ID ? new Bun.CryptoHasher("sha256").update(request.user).digest("hex") : request.user;
  }
  if (request.metadata && Object.keys(request.metadata).length > 0) {
    warn("metadata dropped: Chat Completions accepts it only for stored completions");
  }
  if (request.previousResponseId !== undefined) {
    warn("previous_response_id dropped: the conversation it names lives on a Responses upstream");
  }
}

/**
 * The canonical request → a Chat Completions body for `ctx.upstreamModelId`. The effort is not set
 * here (the pipeline applies set-chat-effort afterwards). When streaming, usage is always asked
 * for, whatever the client wanted: the gateway needs it for accounting.
 */
export function encodeChatRequest(request: CanonicalRequest, ctx: UpstreamRequestContext): Converted<JsonObject> {
  const warnings = new Set<string>();
  const warn = (warning: string): void => void warnings.add(warning);
  const body: JsonObject = {
    model: ctx.upstreamModelId,
    messages: encodeMessages(request.system, request.messages, { vision: ctx.model.vision, warn }),
  };
  setTools(body, request, ctx, warn);
  setLimits(body, request, ctx, warn);
  setSampling(body, request.sampling, warn);
  if (request.responseFormat) body.response_format = encodeResponseFormat(request.responseFormat);
  setIdentity(body, request, warn);
  body.stream = request.stream;
  if (request.stream) body.stream_options = { include_usage: true };
  return { value: body, warnings: [...warnings] };
}
