import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { NORMALIZE, type Normalized } from "./normalize.ts";

/** A tool both sides know; the conformance scenarios call it in parallel. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly schema: Record<string, unknown>;
}

export interface ToolResult {
  readonly callId: string;
  readonly content: string;
  readonly isError: boolean;
  /** The AI SDK names the tool a result answers. */
  readonly toolName?: string;
}

/** One turn, written once and rendered in each client format by the official SDK. */
export interface Turn {
  readonly system?: string;
  readonly user: string;
  readonly tools?: readonly ToolSpec[];
  readonly imageBase64Png?: string;
  readonly maxTokens?: number;
  /** A previous answer in this client's own shape, with the results of its tool calls. */
  readonly previous?: { readonly answer: unknown; readonly results?: readonly ToolResult[]; readonly user?: string };
  readonly headers?: Record<string, string>;
}

export interface Clients {
  readonly anthropic: Anthropic;
  readonly openai: OpenAI;
}

export function makeClients(baseUrl: string, key: string): Clients {
  return {
    anthropic: new Anthropic({ baseURL: baseUrl, apiKey: key, maxRetries: 0 }),
    openai: new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 }),
  };
}

function messagesBody(tier: string, turn: Turn): Anthropic.MessageCreateParamsNonStreaming {
  const messages: Anthropic.MessageParam[] = [];
  if (turn.previous) {
    const prev = turn.previous.answer as Anthropic.Message;
    messages.push({ role: "user", content: turn.previous.user ?? "first question" });
    messages.push({ role: "assistant", content: prev.content as Anthropic.ContentBlockParam[] });
    if (turn.previous.results) {
      messages.push({
        role: "user",
        content: turn.previous.results.map((r) => ({ type: "tool_result" as const, tool_use_id: r.callId, content: r.content, is_error: r.isError })),
      });
    }
  }
  const content: Anthropic.ContentBlockParam[] = [];
  if (turn.imageBase64Png) content.push({ type: "image", source: { type: "base64", media_type: "image/png", data: turn.imageBase64Png } });
  content.push({ type: "text", text: turn.user });
  if (!turn.previous?.results) messages.push({ role: "user", content });
  return {
    model: tier,
    max_tokens: turn.maxTokens ?? 1024,
    ...(turn.system ? { system: turn.system } : {}),
    messages,
    ...(turn.tools ? { tools: turn.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema as Anthropic.Tool.InputSchema })) } : {}),
  };
}

function chatBody(tier: string, turn: Turn): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  if (turn.system) messages.push({ role: "system", content: turn.system });
  if (turn.previous) {
    const prev = (turn.previous.answer as OpenAI.Chat.ChatCompletion).choices[0]!.message;
    messages.push({ role: "user", content: turn.previous.user ?? "first question" });
    messages.push({ role: "assistant", content: prev.content ?? null, ...(prev.tool_calls ? { tool_calls: prev.tool_calls } : {}) });
    for (const r of turn.previous.results ?? []) messages.push({ role: "tool", tool_call_id: r.callId, content: r.content });
  }
  if (!turn.previous?.results) {
    const parts: OpenAI.Chat.ChatCompletionContentPart[] = [];
    if (turn.imageBase64Png) parts.push({ type: "image_url", image_url: { url: `data:image/png;base64,${turn.imageBase64Png}` } });
    parts.push({ type: "text", text: turn.user });
    messages.push({ role: "user", content: parts });
  }
  return {
    model: tier,
    messages,
    ...(turn.maxTokens ? { max_completion_tokens: turn.maxTokens } : {}),
    ...(turn.tools ? { tools: turn.tools.map((t) => ({ type: "function" as const, function: { name: t.name, description: t.description, parameters: t.schema } })) } : {}),
  };
}

function responsesBody(tier: string, turn: Turn): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  if (turn.previous) {
    const prev = turn.previous.answer as OpenAI.Responses.Response;
    input.push({ role: "user", content: turn.previous.user ?? "first question" });
    input.push(...(prev.output as OpenAI.Responses.ResponseInputItem[]));
    for (const r of turn.previous.results ?? []) input.push({ type: "function_call_output", call_id: r.callId, output: r.content });
  }
  if (!turn.previous?.results) {
    const content: OpenAI.Responses.ResponseInputContent[] = [];
    if (turn.imageBase64Png) content.push({ type: "input_image", image_url: `data:image/png;base64,${turn.imageBase64Png}`, detail: "auto" });
    content.push({ type: "input_text", text: turn.user });
    input.push({ role: "user", content });
  }
  return {
    model: tier,
    input,
    store: false,
    include: ["reasoning.encrypted_content"],
    ...(turn.system ? { instructions: turn.system } : {}),
    ...(turn.maxTokens ? { max_output_tokens: turn.maxTokens } : {}),
    ...(turn.tools ? { tools: turn.tools.map((t) => ({ type: "function" as const, name: t.name, description: t.description, parameters: t.schema, strict: false })) } : {}),
  };
}

/** Chat chunks put back together the way a careful client does: tool calls by `index`. */
async function collectChatStream(stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>): Promise<OpenAI.Chat.ChatCompletion> {
  let content = "";
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let role: string | undefined;
  const calls: { id: string; type: "function"; function: { name: string; arguments: string } }[] = [];
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    role ??= choice.delta.role ?? undefined;
    content += choice.delta.content ?? "";
    for (const d of choice.delta.tool_calls ?? []) {
      const call = (calls[d.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (d.id) call.id = d.id;
      if (d.function?.name) call.function.name += d.function.name;
      if (d.function?.arguments) call.function.arguments += d.function.arguments;
    }
    finish = choice.finish_reason ?? finish;
  }
  if (role !== "assistant") throw new Error(`the first chunk did not carry role "assistant" (got ${role})`);
  return {
    id: "assembled",
    object: "chat.completion",
    created: 0,
    model: "",
    choices: [{ index: 0, finish_reason: finish as "stop", logprobs: null, message: { role: "assistant", content, refusal: null, ...(calls.length ? { tool_calls: calls } : {}) } }],
    ...(usage ? { usage } : {}),
  };
}

export interface Asked {
  /** The answer in the client's own shape (as the SDK returned or assembled it). */
  readonly answer: unknown;
  readonly normalized: Normalized;
}

/** Sends one turn in client format `format` through the official SDK, streaming or not. */
export async function ask(clients: Clients, format: WireFormat, tier: string, turn: Turn, stream: boolean): Promise<Asked> {
  const options = turn.headers ? { headers: turn.headers } : undefined;
  let answer: unknown;
  if (format === "messages") {
    const body = messagesBody(tier, turn);
    answer = stream ? await clients.anthropic.messages.stream(body, options).finalMessage() : await clients.anthropic.messages.create(body, options);
  } else if (format === "chat") {
    const body = chatBody(tier, turn);
    answer = stream
      ? await collectChatStream(await clients.openai.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options))
      : await clients.openai.chat.completions.create(body, options);
  } else {
    const body = responsesBody(tier, turn);
    answer = stream ? await clients.openai.responses.stream({ ...body, stream: true }, options).finalResponse() : await clients.openai.responses.create(body, options);
  }
  return { answer, normalized: NORMALIZE[format](answer) };
}
