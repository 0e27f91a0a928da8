import type { Converted } from "../../canonical/converted.ts";
import type { TextPart } from "../../canonical/content-part.ts";
import type { CanonicalMessage, CanonicalRequest } from "../../canonical/request.ts";
import { writeCacheControl } from "./read-fields.ts";
import type { UpstreamRequestContext } from "../upstream-adapter.ts";
import { encodeBlock, type Warn } from "./encode-content.ts";
import { encodeToolChoice, encodeTools } from "./encode-tools.ts";
import type { JsonObject } from "../../canonical/json-object.ts";

interface WireMessage {
  role: "user" | "assistant";
  content: JsonObject[];
}

function encodeSystem(parts: readonly TextPart[]): JsonObject[] {
  return parts.filter((part) => part.text !== "").map((part) => ({ type: "text", text: part.text, ...writeCacheControl(part.cacheControl) }));
}

/**
 * Canonical history → Messages turns. Instructions from the middle of the history are appended to
 * the system prompt (the API has no system turn); consecutive turns of one role are merged, and
 * tool results lead their user turn, as the API requires after a `tool_use`.
 */
function encodeMessages(messages: readonly CanonicalMessage[], system: JsonObject[], warn: Warn): WireMessage[] {
  const turns: WireMessage[] = [];
  for (const message of messages) {
    if (message.role === "system") {
      warn("instructions from the middle of the conversation moved to the system prompt");
      system.push(...encodeSystem(message.content.filter((part): part is TextPart => part.type === "text")));
      continue;
    }
    const content = message.content.flatMap((part) => {
      const block = encodeBlock(part, warn);
      return block ? [block] : [];
    });
    if (content.length === 0) continue;
    const last = turns.at(-1);
    if (last && last.role === message.role) last.content.push(...content);
    else turns.push({ role: message.role, content });
  }
  for (const turn of turns) {
    if (turn.role !== "user") continue;
    const results = turn.content.filter((block) => block.type === "tool_result");
    if (results.length > 0) turn.content = [...results, ...turn.content.filter((block) => block.type !== "tool_result")];
  }
  return turns;
}

function encodeSampling(request: CanonicalRequest, warn: Warn): JsonObject {
  const { temperature, topP, topK, presencePenalty, frequencyPenalty, seed } = request.sampling;
  const body: JsonObject = {};
  if (temperature !== undefined) {
    // OpenAI temperatures run to 2; Messages stops at 1.
    if (temperature > 1) warn(`temperature ${temperature} lowered to 1 (Messages range is 0-1)`);
    body.temperature = Math.min(temperature, 1);
  }
  if (topP !== undefined) body.top_p = topP;
  if (topK !== undefined) body.top_k = topK;
  if (presencePenalty !== undefined) warn("presence_penalty dropped (no Messages equivalent)");
  if (frequencyPenalty !== undefined) warn("frequency_penalty dropped (no Messages equivalent)");
  if (seed !== undefined) warn("seed dropped (no Messages equivalent)");
  return body;
}

function encodeOutputConfig(request: CanonicalRequest, warn: Warn): JsonObject {
  const format = request.responseFormat;
  if (!format || format.type === "text") return {};
  if (format.type === "json_object") {
    warn("response_format json_object dropped (Messages has only JSON-schema output)");
    return {};
  }
  return { output_config: { format: { type: "json_schema", schema: format.schema } } };
}

function maxTokens(request: CanonicalRequest, ctx: UpstreamRequestContext, warn: Warn): number {
  // Messages requires max_tokens; without the client's cap the model's own limit applies.
  const wanted = request.maxOutputTokens ?? ctx.model.maxOutputTokens;
  if (wanted > ctx.model.maxOutputTokens) {
    warn(`max tokens ${wanted} lowered to the model's limit ${ctx.model.maxOutputTokens}`);
    return ctx.model.maxOutputTokens;
  }
  return wanted;
}

/**
 * The canonical request → a Messages API body for `ctx.upstreamModelId`. What the API cannot take
 * is dropped or flattened and reported. The thinking type is a placeholder: the effort setter that
 * runs after decides it (and `fitThinkingConstraints` then removes what thinking forbids).
 */
export function encodeMessagesRequest(request: CanonicalRequest, ctx: UpstreamRequestContext): Converted<JsonObject> {
  const warnings = new Set<string>();
  const warn: Warn = (message) => void warnings.add(message);
  const system = encodeSystem(request.system);
  const messages = encodeMessages(request.messages, system, warn);
  const tools = encodeTools(request.tools, warn);
  const toolChoice = tools.length > 0 ? encodeToolChoice(request.toolChoice, request.parallelToolCalls) : undefined;
  if (tools.length === 0 && (request.toolChoice?.type === "required" || request.toolChoice?.type === "tool")) {
    warn("tool_choice dropped: no tools to call");
  }
  if (request.metadata && Object.keys(request.metadata).length > 0) warn("metadata dropped (Messages takes only a user id)");
  if (request.previousResponseId !== undefined) warn("previous_response_id dropped: the stored conversation needs a Responses upstream");
  const body: JsonObject = {
    model: ctx.upstreamModelId,
    max_tokens: maxTokens(request, ctx, warn),
    ...(system.length > 0 ? { system } : {}),
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(request.stop.length > 0 ? { stop_sequences: [...request.stop] } : {}),
    ...encodeSampling(request, warn),
    ...encodeOutputConfig(request, warn),
    ...(request.user !== undefined ? { metadata: { user_id: request.user } } : {}),
    // The effort setter replaces the type and keeps `display`: clients of other formats are shown
    // reasoning text, which newer models omit unless asked.
    thinking: { type: "adaptive", display: "summarized" },
    stream: request.stream,
  };
  return { value: body, warnings: [...warnings] };
}
