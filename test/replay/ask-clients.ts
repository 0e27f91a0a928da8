import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import Anthropic from "@anthropic-ai/sdk";
import { generateText, jsonSchema, streamText, tool, type LanguageModel, type ToolSet } from "ai";
import OpenAI from "openai";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { argsOf, arr, num, obj, str, type AnswerShape, type UnifiedStop } from "./answer-shape.ts";

/** The clients people use, per format: the official SDK and the AI SDK. */
export type ClientKind = "sdk" | "ai-sdk";

/** What a client made of an answer, in canonical terms, with the client's own answer beside it. */
export type Outcome =
  | { readonly ok: true; readonly shape: Observed; readonly answer: unknown }
  | { readonly ok: false; readonly status: number | undefined; readonly message: string };

/** Stop reasons as the client's format says them: compared in the format's own words. */
export interface Observed extends Omit<AnswerShape, "stop" | "other" | "usage"> {
  readonly stop: string;
  /** undefined: the client does not report that count. */
  readonly usage: { readonly [K in keyof AnswerShape["usage"]]: number | undefined };
}

export interface Target {
  /** Root URL (no `/v1`). */
  readonly url: string;
  readonly key: string;
}

const MARK = (file: string): string => `REPLAY:${file}`;

// ---- official SDKs ----

function readMessage(message: Json): Observed {
  const content = arr(message.content).map(obj);
  const usage = obj(message.usage);
  const read = num(usage.cache_read_input_tokens);
  const write = num(usage.cache_creation_input_tokens);
  return {
    text: content.filter((c) => c.type === "text").map((c) => str(c.text)).join(""),
    toolCalls: content.filter((c) => c.type === "tool_use").map((c) => ({ id: str(c.id), name: str(c.name), args: argsOf(c.input) })),
    thinking: content.filter((c) => c.type === "thinking").map((c) => ({ text: str(c.thinking), signature: str(c.signature) })),
    redacted: content.filter((c) => c.type === "redacted_thinking").map((c) => str(c.data)),
    stop: str(message.stop_reason),
    usage: { input: num(usage.input_tokens) + read + write, output: num(usage.output_tokens), cacheRead: read, cacheWrite: write, reasoning: num(obj(usage.output_tokens_details).thinking_tokens) },
  };
}

function readCompletion(completion: Json): Observed {
  const choice = obj(arr(completion.choices)[0]);
  const message = obj(choice.message);
  const usage = obj(completion.usage);
  const reasoning = str(message.reasoning_content);
  return {
    text: str(message.content),
    toolCalls: arr(message.tool_calls).map(obj).map((c) => ({ id: str(c.id), name: str(obj(c.function).name), args: argsOf(obj(c.function).arguments) })),
    thinking: reasoning === "" ? [] : [{ text: reasoning }],
    redacted: [],
    stop: str(choice.finish_reason),
    usage: {
      input: num(usage.prompt_tokens),
      output: num(usage.completion_tokens),
      cacheRead: num(obj(usage.prompt_tokens_details).cached_tokens),
      cacheWrite: num(obj(usage.prompt_tokens_details).cache_write_tokens),
      reasoning: num(obj(usage.completion_tokens_details).reasoning_tokens),
    },
  };
}

function readResponse(response: Json): Observed {
  const output = arr(response.output).map(obj);
  const usage = obj(response.usage);
  const reason = str(obj(response.incomplete_details).reason);
  return {
    text: output.filter((o) => o.type === "message").flatMap((o) => arr(o.content).map(obj)).map((c) => (c.type === "refusal" ? str(c.refusal) : str(c.text))).join(""),
    toolCalls: output.filter((o) => o.type === "function_call").map((c) => ({ id: str(c.call_id), name: str(c.name), args: argsOf(c.arguments) })),
    thinking: output.filter((o) => o.type === "reasoning").map((o) => ({ text: arr(o.summary).map(obj).map((s) => str(s.text)).join("\n\n"), signature: str(o.encrypted_content) })),
    redacted: [],
    stop: reason === "" ? str(response.status) : `${str(response.status)}:${reason}`,
    usage: {
      input: num(usage.input_tokens),
      output: num(usage.output_tokens),
      cacheRead: num(obj(usage.input_tokens_details).cached_tokens),
      cacheWrite: num(obj(usage.input_tokens_details).cache_write_tokens),
      reasoning: num(obj(usage.output_tokens_details).reasoning_tokens),
    },
  };
}

type Json = Record<string, unknown>;

async function askSdk(format: WireFormat, target: Target, model: string, file: string, stream: boolean): Promise<Observed & { answer: unknown }> {
  if (format === "messages") {
    const client = new Anthropic({ baseURL: target.url, apiKey: target.key, maxRetries: 0 });
    const body = { model, max_tokens: 1024, messages: [{ role: "user" as const, content: MARK(file) }] };
    const answer = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    return { ...readMessage(answer as unknown as Json), answer };
  }
  const client = new OpenAI({ baseURL: `${target.url}/v1`, apiKey: target.key, maxRetries: 0 });
  if (format === "chat") {
    const body = { model, messages: [{ role: "user" as const, content: MARK(file) }] };
    if (!stream) {
      const answer = await client.chat.completions.create(body);
      return { ...readCompletion(answer as unknown as Json), answer };
    }
    // The SDK's accumulator keeps only the last chunk's `reasoning_content` (a field it does not
    // know): the reasoning is read from the chunks as they pass.
    let reasoning = "";
    const running = client.chat.completions.stream({ ...body, stream: true, stream_options: { include_usage: true } });
    running.on("chunk", (chunk) => {
      reasoning += str(obj(obj(arr((chunk as unknown as Json).choices)[0]).delta).reasoning_content);
    });
    const answer = await running.finalChatCompletion();
    const read = readCompletion(answer as unknown as Json);
    return { ...read, thinking: reasoning === "" ? [] : [{ text: reasoning }], answer };
  }
  const body = { model, input: MARK(file), store: false };
  const answer = stream ? await client.responses.stream({ ...body, stream: true }).finalResponse() : await client.responses.create(body);
  return { ...readResponse(answer as unknown as Json), answer };
}

// ---- AI SDK ----

const AI_SDK_STOPS: Readonly<Record<string, string>> = { stop: "stop", length: "length", "tool-calls": "tool-calls", "content-filter": "content-filter", other: "other" };

function aiModel(format: WireFormat, target: Target, model: string): LanguageModel {
  if (format === "messages") return createAnthropic({ baseURL: `${target.url}/v1`, apiKey: target.key })(model);
  const openai = createOpenAI({ baseURL: `${target.url}/v1`, apiKey: target.key });
  return format === "chat" ? openai.chat(model) : openai.responses(model);
}

/** Function tools for the names the answer calls, so the AI SDK accepts the calls (no `execute`: one step). */
function toolsFor(names: readonly string[]): ToolSet {
  return Object.fromEntries(names.map((name) => [name, tool({ inputSchema: jsonSchema({ type: "object", additionalProperties: true }) })]));
}

interface AiResult {
  readonly text: string;
  readonly toolCalls: readonly { toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean; dynamic?: boolean }[];
  readonly reasoning: readonly { text: string; providerMetadata?: unknown }[];
  readonly finishReason: string;
  readonly usage: { inputTokens?: number; outputTokens?: number; inputTokenDetails?: { cacheReadTokens?: number; cacheWriteTokens?: number }; outputTokenDetails?: { reasoningTokens?: number } };
  readonly content: unknown;
}

function readAi(result: AiResult): Observed {
  const usage = result.usage;
  return {
    text: result.text,
    toolCalls: result.toolCalls.filter((c) => c.providerExecuted !== true).map((c) => ({ id: c.toolCallId, name: c.toolName, args: c.input })),
    thinking: result.reasoning.map((r) => ({ text: r.text })),
    redacted: [],
    stop: AI_SDK_STOPS[result.finishReason] ?? result.finishReason,
    usage: {
      input: usage.inputTokens,
      output: usage.outputTokens,
      cacheRead: usage.inputTokenDetails?.cacheReadTokens,
      cacheWrite: usage.inputTokenDetails?.cacheWriteTokens,
      reasoning: usage.outputTokenDetails?.reasoningTokens,
    },
  };
}

async function askAiSdk(format: WireFormat, target: Target, model: string, file: string, stream: boolean, toolNames: readonly string[]): Promise<Observed & { answer: unknown }> {
  const options = { model: aiModel(format, target, model), prompt: MARK(file), maxRetries: 0, ...(toolNames.length > 0 ? { tools: toolsFor(toolNames) } : {}) };
  if (!stream) {
    const result = await generateText(options);
    return { ...readAi(result as unknown as AiResult), answer: { content: result.content, finishReason: result.finishReason, usage: result.usage } };
  }
  let failure: unknown;
  const result = streamText({ ...options, onError: ({ error }) => {
      failure ??= error;
    } });
  // Every part is read, as a UI would; an error part fails the answer.
  for await (const part of result.fullStream) if (part.type === "error") failure ??= part.error;
  if (failure !== undefined) throw failure;
  const [text, toolCalls, reasoning, finishReason, usage, content] = await Promise.all([result.text, result.toolCalls, result.reasoning, result.finishReason, result.usage, result.content]);
  const read = readAi({ text, toolCalls, reasoning, finishReason, usage, content } as unknown as AiResult);
  return { ...read, answer: { content, finishReason, usage } };
}

/** Asks one client of `format` for the recording `file`, streamed or not, and reads what it got. */
export async function ask(kind: ClientKind, format: WireFormat, target: Target, model: string, file: string, stream: boolean, toolNames: readonly string[]): Promise<Outcome> {
  try {
    const { answer, ...shape } = kind === "sdk" ? await askSdk(format, target, model, file, stream) : await askAiSdk(format, target, model, file, stream, toolNames);
    return { ok: true, shape, answer };
  } catch (error) {
    const e = obj(error);
    const status = typeof e.status === "number" ? e.status : typeof e.statusCode === "number" ? e.statusCode : undefined;
    return { ok: false, status, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

export type { UnifiedStop };
