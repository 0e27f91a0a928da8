import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { routeOf, sdkClients, type RoutingGateway } from "./start-routing-gateway.ts";

/** A tool both turn kinds know; the sim calls it when a `[sim tool=…]` directive says so. */
export const RUN_TESTS = {
  name: "run_tests",
  description: "Run the test suite of a directory and report the outcome.",
  schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
} as const;

export interface TurnAnswer {
  readonly model: string | null;
  readonly effort: string | null;
  readonly source: string | null;
  /** Ids of the tool calls the answer made, in order. */
  readonly callIds: readonly string[];
  readonly text: string;
}

/**
 * One conversation held by an official SDK in its client's own shape, the way an agent holds it:
 * every answer goes back into the history verbatim, tool results are appended after it.
 */
export interface SdkConversation {
  /** A new user text turn. */
  say(text: string, headers?: Record<string, string>): Promise<TurnAnswer>;
  /** Results for every call of the last answer (a tool-result turn). */
  reply(results: readonly { readonly text: string; readonly isError?: boolean }[], headers?: Record<string, string>): Promise<TurnAnswer>;
}

type Options = { headers?: Record<string, string> };

function anthropicConversation(client: Anthropic, stream: boolean, tier: string): SdkConversation {
  const messages: Anthropic.MessageParam[] = [];
  let lastCalls: string[] = [];
  const tools: Anthropic.Tool[] = [{ name: RUN_TESTS.name, description: RUN_TESTS.description, input_schema: RUN_TESTS.schema as unknown as Anthropic.Tool.InputSchema }];
  async function send(options: Options): Promise<TurnAnswer> {
    const body: Anthropic.MessageCreateParamsNonStreaming = { model: tier, max_tokens: 1024, messages: [...messages], tools };
    let message: Anthropic.Message;
    let response: Response;
    if (stream) {
      const s = client.messages.stream(body, options);
      ({ response } = await s.withResponse());
      message = await s.finalMessage();
    } else {
      ({ data: message, response } = await client.messages.create(body, options).withResponse());
    }
    messages.push({ role: "assistant", content: message.content as Anthropic.ContentBlockParam[] });
    lastCalls = message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    return { ...routeOf(response), callIds: lastCalls, text };
  }
  return {
    say(text, headers) {
      messages.push({ role: "user", content: text });
      return send({ headers: headers ?? {} });
    },
    reply(results, headers) {
      const content = lastCalls.map((id, i) => ({ type: "tool_result" as const, tool_use_id: id, content: results[i]!.text, is_error: results[i]!.isError ?? false }));
      messages.push({ role: "user", content });
      return send({ headers: headers ?? {} });
    },
  };
}

/** Chat chunks assembled the way a careful client does: tool calls by `index`. */
async function assembleChat(chunks: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>): Promise<OpenAI.Chat.ChatCompletionMessage> {
  let content = "";
  const calls: OpenAI.Chat.ChatCompletionMessageFunctionToolCall[] = [];
  for await (const chunk of chunks) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    content += delta.content ?? "";
    for (const d of delta.tool_calls ?? []) {
      const call = (calls[d.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (d.id) call.id = d.id;
      if (d.function?.name) call.function.name += d.function.name;
      if (d.function?.arguments) call.function.arguments += d.function.arguments;
    }
  }
  return { role: "assistant", content, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function chatConversation(client: OpenAI, stream: boolean, tier: string): SdkConversation {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  let lastCalls: string[] = [];
  const tools: OpenAI.Chat.ChatCompletionTool[] = [{ type: "function", function: { name: RUN_TESTS.name, description: RUN_TESTS.description, parameters: RUN_TESTS.schema } }];
  async function send(options: Options): Promise<TurnAnswer> {
    const body = { model: tier, messages: [...messages], tools };
    let message: OpenAI.Chat.ChatCompletionMessage;
    let response: Response;
    if (stream) {
      const { data, response: r } = await client.chat.completions.create({ ...body, stream: true }, options).withResponse();
      response = r;
      message = await assembleChat(data);
    } else {
      const { data, response: r } = await client.chat.completions.create(body, options).withResponse();
      response = r;
      message = data.choices[0]!.message;
    }
    messages.push({ role: "assistant", content: message.content ?? null, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    lastCalls = (message.tool_calls ?? []).map((c) => c.id);
    return { ...routeOf(response), callIds: lastCalls, text: message.content ?? "" };
  }
  return {
    say(text, headers) {
      messages.push({ role: "user", content: text });
      return send({ headers: headers ?? {} });
    },
    reply(results, headers) {
      for (const [i, id] of lastCalls.entries()) messages.push({ role: "tool", tool_call_id: id, content: results[i]!.text });
      return send({ headers: headers ?? {} });
    },
  };
}

function responsesConversation(client: OpenAI, stream: boolean, tier: string): SdkConversation {
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  let lastCalls: string[] = [];
  const tools: OpenAI.Responses.FunctionTool[] = [{ type: "function", name: RUN_TESTS.name, description: RUN_TESTS.description, parameters: RUN_TESTS.schema, strict: false }];
  async function send(options: Options): Promise<TurnAnswer> {
    const body = { model: tier, input: [...input], tools, store: false, include: ["reasoning.encrypted_content" as const] };
    let answer: OpenAI.Responses.Response | undefined;
    let response: Response;
    if (stream) {
      const { data, response: r } = await client.responses.create({ ...body, stream: true }, options).withResponse();
      response = r;
      for await (const event of data) if (event.type === "response.completed") answer = event.response;
      if (!answer) throw new Error("the stream ended without response.completed");
    } else {
      ({ data: answer, response } = await client.responses.create(body, options).withResponse());
    }
    input.push(...(answer.output as OpenAI.Responses.ResponseInputItem[]));
    lastCalls = answer.output.flatMap((item) => (item.type === "function_call" ? [item.call_id] : []));
    // `output_text` is a convenience the SDK adds to non-stream answers only.
    const text = answer.output.flatMap((item) => (item.type === "message" ? item.content.flatMap((c) => (c.type === "output_text" ? [c.text] : [])) : [])).join("");
    return { ...routeOf(response), callIds: lastCalls, text };
  }
  return {
    say(text, headers) {
      input.push({ role: "user", content: text });
      return send({ headers: headers ?? {} });
    },
    reply(results, headers) {
      for (const [i, id] of lastCalls.entries()) input.push({ type: "function_call_output", call_id: id, output: results[i]!.text });
      return send({ headers: headers ?? {} });
    },
  };
}

/** A conversation on `tier` through the official SDK of `format`, streaming or not. */
export function startSdkConversation(gw: RoutingGateway, format: WireFormat, stream: boolean, tier = "normal"): SdkConversation {
  const { anthropic, openai } = sdkClients(gw);
  if (format === "messages") return anthropicConversation(anthropic, stream, tier);
  if (format === "chat") return chatConversation(openai, stream, tier);
  return responsesConversation(openai, stream, tier);
}
