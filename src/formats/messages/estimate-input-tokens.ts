import type { CountTokensRequest } from "./schema.ts";

/** Rough tokens of text: about four characters a token for English and code. */
const tokensOf = (text: string): number => Math.ceil(text.length / 4);

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textOf).join(" ");
  if (value !== null && typeof value === "object") {
    const block = value as Record<string, unknown>;
    if (typeof block.text === "string") return block.text;
    if (block.type === "tool_use") return `${String(block.name)} ${JSON.stringify(block.input ?? {})}`;
    if (block.type === "tool_result") return textOf(block.content);
    if (typeof block.thinking === "string") return block.thinking;
  }
  return "";
}

/** Per-message framing the models add around each turn. */
const MESSAGE_OVERHEAD = 3;

/**
 * A local estimate of a Messages request's input tokens, used when no upstream can count:
 * system, message text, tool calls and results, and the tool definitions.
 */
export function estimateInputTokens(request: CountTokensRequest): number {
  let tokens = tokensOf(textOf(request.system ?? ""));
  for (const message of request.messages) tokens += MESSAGE_OVERHEAD + tokensOf(textOf(message.content));
  if (request.tools && request.tools.length > 0) tokens += tokensOf(JSON.stringify(request.tools));
  return Math.max(1, tokens);
}
