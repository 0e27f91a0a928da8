import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, streamText, tool, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import type { ToolSpec, Turn } from "./drive-clients.ts";
import type { Normalized, Stop } from "./normalize.ts";

/** The AI SDK's model for a client format: `@ai-sdk/anthropic`, or `@ai-sdk/openai`'s chat or responses model. */
export function aiSdkModel(format: WireFormat, baseUrl: string, key: string, tier: string): LanguageModel {
  if (format === "messages") return createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: key })(tier);
  const openai = createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key });
  return format === "chat" ? openai.chat(tier) : openai.responses(tier);
}

const STOPS: Readonly<Record<string, Stop>> = { stop: "end_turn", "tool-calls": "tool_use", length: "max_tokens" };

/** Function tools without `execute`: the answer's calls come back to the test, one step. */
function toolSet(tools: readonly ToolSpec[] | undefined): ToolSet | undefined {
  if (!tools) return undefined;
  return Object.fromEntries(tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.schema) })]));
}

interface AiAnswer {
  readonly text: string;
  readonly toolCalls: readonly { readonly toolCallId: string; readonly toolName: string; readonly input: unknown }[];
  readonly finishReason: string;
  readonly usage: { readonly inputTokens?: number; readonly outputTokens?: number; readonly inputTokenDetails?: { readonly cacheReadTokens?: number } };
}

function normalize(answer: AiAnswer): Normalized {
  return {
    text: answer.text,
    toolCalls: answer.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, args: c.input })),
    input: answer.usage.inputTokens ?? 0,
    output: answer.usage.outputTokens ?? 0,
    cacheRead: answer.usage.inputTokenDetails?.cacheReadTokens ?? 0,
    cacheWrite: null,
    stop: STOPS[answer.finishReason] ?? "other",
    thinking: [],
  };
}

/**
 * One turn through the AI SDK (`generateText`, or `streamText` read to its end), the way an app
 * built on it calls the gateway. A turn that continues `previous` sends the AI SDK's own response
 * messages back, with the tool results.
 */
export async function askAiSdk(model: LanguageModel, turn: Turn, stream: boolean, previous?: readonly ModelMessage[]): Promise<{ normalized: Normalized; messages: ModelMessage[] }> {
  const messages: ModelMessage[] = [...(previous ?? [])];
  if (!previous) messages.push({ role: "user", content: turn.user });
  for (const r of turn.previous?.results ?? []) {
    messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: r.callId, toolName: r.toolName ?? "", output: r.isError ? { type: "error-text", value: r.content } : { type: "text", value: r.content } }] });
  }
  const tools = toolSet(turn.tools);
  const options = { model, messages, maxRetries: 0, ...(turn.system ? { system: turn.system } : {}), ...(turn.maxTokens ? { maxOutputTokens: turn.maxTokens } : {}), ...(tools ? { tools } : {}) };
  if (!stream) {
    const result = await generateText(options);
    return { normalized: normalize(result), messages: [...messages, ...result.response.messages] };
  }
  let failure: unknown;
  const result = streamText({
    ...options,
    onError: ({ error }) => {
      failure ??= error;
    },
  });
  for await (const part of result.fullStream) if (part.type === "error") failure ??= part.error;
  if (failure !== undefined) throw failure;
  const [text, toolCalls, finishReason, usage, response] = await Promise.all([result.text, result.toolCalls, result.finishReason, result.usage, result.response]);
  return { normalized: normalize({ text, toolCalls, finishReason, usage }), messages: [...messages, ...response.messages] };
}
