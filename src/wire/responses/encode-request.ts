import type { Converted } from "../../canonical/converted.ts";
import type { ContentPart } from "../../canonical/content-part.ts";
import type { CanonicalMessage, CanonicalRequest, ResponseFormat, Tool, ToolChoice } from "../../canonical/request.ts";
import type { UpstreamRequestContext } from "../upstream-adapter.ts";
import { encodeResponsesInput } from "./encode-input.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

const MIN_OUTPUT_TOKENS = 16;
/** OpenAI rejects longer `safety_identifier` values. */
const MAX_SAFETY_IDENTIFIER = 64;

/** The schema a builtin tool of another API declares, if it declares one. */
function builtinSchema(raw: JsonObject): JsonObject | undefined {
  if (isJsonObject(raw.input_schema)) return raw.input_schema;
  if (isJsonObject(raw.parameters)) return raw.parameters;
  if (isJsonObject(raw.function) && isJsonObject(raw.function.parameters)) return raw.function.parameters;
  return undefined;
}

function encodeTools(tools: readonly Tool[], warnings: string[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const tool of tools) {
    if (tool.kind === "function") {
      out.push({
        type: "function",
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.inputSchema,
        // Omitted means "strict when the schema allows it" upstream, which would change the meaning.
        strict: tool.strict ?? false,
      });
      continue;
    }
    if (tool.format === "responses") {
      out.push({ ...tool.raw });
      continue;
    }
    const schema = builtinSchema(tool.raw);
    const description = typeof tool.raw.description === "string" ? { description: tool.raw.description } : {};
    if (tool.name !== undefined && schema !== undefined) {
      out.push({ type: "function", name: tool.name, ...description, parameters: schema, strict: false });
      warnings.push(`tool ${tool.name} (${tool.type}) was sent as a plain function tool`);
    } else {
      warnings.push(`tool ${tool.name ?? tool.type} (${tool.type}) has no Responses equivalent and was dropped`);
    }
  }
  return out;
}

/** A forced tool that did not survive the conversion would be a 400 upstream: ask for any tool instead. */
function encodeToolChoice(choice: ToolChoice, tools: readonly JsonObject[], warnings: string[]): unknown {
  if (choice.type !== "tool") return choice.type;
  if (tools.some((tool) => tool.type === "function" && tool.name === choice.name)) return { type: "function", name: choice.name };
  warnings.push(`tool_choice names ${choice.name}, which was not sent as a function tool; required is used`);
  return "required";
}

/** Responses needs a name matching ^[a-zA-Z0-9_-]{1,64}$; Messages' schema output has none. */
function formatName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return cleaned === "" ? "output" : cleaned;
}

function encodeFormat(format: ResponseFormat): JsonObject {
  if (format.type !== "json_schema") return { type: format.type };
  return {
    type: "json_schema",
    name: formatName(format.name),
    schema: format.schema,
    ...(format.description !== undefined ? { description: format.description } : {}),
    ...(format.strict !== undefined ? { strict: format.strict } : {}),
  };
}

function hasCacheControl(request: CanonicalRequest): boolean {
  if (request.system.some((part) => part.cacheControl !== undefined)) return true;
  if (request.tools.some((tool) => tool.kind === "function" && tool.cacheControl !== undefined)) return true;
  return request.messages.some((message) => message.content.some((part) => "cacheControl" in part && part.cacheControl !== undefined));
}

/** The messages without images when the model has no vision, so the upstream does not reject the request. */
function withoutImages(request: CanonicalRequest, ctx: UpstreamRequestContext, warnings: string[]): readonly CanonicalMessage[] {
  if (ctx.model.vision) return request.messages;
  let dropped = 0;
  const messages = request.messages.map((message) => ({
    ...message,
    content: message.content.flatMap((part): ContentPart[] => {
      if (part.type === "image") {
        dropped++;
        return [];
      }
      if (part.type !== "tool_result") return [part];
      const content = part.content.filter((inner) => inner.type !== "image");
      dropped += part.content.length - content.length;
      return [{ ...part, content }];
    }),
  }));
  if (dropped > 0) warnings.push(`the model has no vision: ${dropped} image(s) were dropped`);
  return messages;
}

/** Sampling, stop and output-cap fields, with what Responses cannot take reported. */
function encodeLimits(request: CanonicalRequest, ctx: UpstreamRequestContext, body: JsonObject, warnings: string[]): void {
  const { sampling } = request;
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  const dropped = (["topK", "presencePenalty", "frequencyPenalty", "seed"] as const).filter((key) => sampling[key] !== undefined);
  if (dropped.length > 0) warnings.push(`sampling fields not supported by Responses were dropped: ${dropped.join(", ")}`);
  if (request.stop.length > 0) warnings.push("stop sequences are not supported by Responses and were dropped");
  if (request.maxOutputTokens !== undefined) {
    const cap = ctx.model.maxOutputTokens;
    body.max_output_tokens = Math.min(Math.max(request.maxOutputTokens, MIN_OUTPUT_TOKENS), Math.max(cap, MIN_OUTPUT_TOKENS));
    if (request.maxOutputTokens < MIN_OUTPUT_TOKENS) warnings.push(`max_output_tokens raised to the Responses minimum of ${MIN_OUTPUT_TOKENS}`);
    if (request.maxOutputTokens > cap) warnings.push(`max_output_tokens lowered to the model's limit of ${cap}`);
  }
}

function encodeIdentity(request: CanonicalRequest, body: JsonObject, warnings: string[]): void {
  if (request.user !== undefined) {
    if (request.user.length <= MAX_SAFETY_IDENTIFIER) body.safety_identifier = request.user;
    else {
      body.safety_identifier = new Bun.CryptoHasher("sha256").update(request.user).digest("hex");
      warnings.push("user id longer than 64 characters was sent hashed as safety_identifier");
    }
  }
  if (request.metadata !== undefined) body.metadata = request.metadata;
  // OpenAI-side fields with the same meaning in every OpenAI format; nothing else of `extra` is ours to send.
  if (typeof request.extra.prompt_cache_key === "string") body.prompt_cache_key = request.extra.prompt_cache_key;
  if (isJsonObject(request.extra.text) && typeof request.extra.text.verbosity === "string") {
    body.text = { ...(isJsonObject(body.text) ? body.text : {}), verbosity: request.extra.text.verbosity };
  }
}

/**
 * A canonical request as a Responses body. Nothing is stored upstream (`store: false`), so a
 * reasoning model is asked for `reasoning.encrypted_content`, which carries its reasoning to the
 * next turn, and for a summary, which is the only reasoning text Responses shows.
 */
export function encodeResponsesRequest(request: CanonicalRequest, ctx: UpstreamRequestContext): Converted<JsonObject> {
  const warnings: string[] = [];
  const body: JsonObject = { model: ctx.upstreamModelId };
  if (request.system.length > 0) body.instructions = request.system.map((part) => part.text).join("\n\n");
  body.input = encodeResponsesInput(withoutImages(request, ctx, warnings), warnings);
  const tools = ctx.model.tools ? encodeTools(request.tools, warnings) : [];
  if (!ctx.model.tools && request.tools.length > 0) warnings.push("the model takes no tools: tool definitions were dropped");
  if (tools.length > 0) body.tools = tools;
  if (request.toolChoice !== undefined && (tools.length > 0 || request.toolChoice.type === "none")) {
    body.tool_choice = encodeToolChoice(request.toolChoice, tools, warnings);
  }
  if (request.parallelToolCalls !== undefined && tools.length > 0) body.parallel_tool_calls = request.parallelToolCalls;
  encodeLimits(request, ctx, body, warnings);
  if (request.responseFormat !== undefined) body.text = { format: encodeFormat(request.responseFormat) };
  encodeIdentity(request, body, warnings);
  if (request.previousResponseId !== undefined) body.previous_response_id = request.previousResponseId;
  body.stream = request.stream;
  body.store = false;
  if (ctx.model.thinking !== "none") {
    body.reasoning = { summary: "auto" };
    body.include = ["reasoning.encrypted_content"];
  }
  if (hasCacheControl(request)) warnings.push("cache_control markers were dropped: Responses caches prompt prefixes automatically");
  return { value: body, warnings };
}
