import type { CountTokensRequest } from "../wire/messages/schema.ts";

type CountTokens = (text: string) => number;

let tokenizer: Promise<CountTokens> | undefined;

/** The o200k_base BPE tables take a while to load, so they are loaded on first use only. */
function loadTokenizer(): Promise<CountTokens> {
  tokenizer ??= import("gpt-tokenizer/encoding/o200k_base").then((module) => module.countTokens);
  return tokenizer;
}

/** Framing the models add around each turn, and a flat guess for an image or document block. */
const MESSAGE_OVERHEAD = 3;
const MEDIA_BLOCK_TOKENS = 1_000;

function collect(value: unknown, texts: string[]): number {
  if (typeof value === "string") {
    texts.push(value);
    return 0;
  }
  if (Array.isArray(value)) return value.reduce((media: number, item) => media + collect(item, texts), 0);
  if (value === null || typeof value !== "object") return 0;
  const block = value as Record<string, unknown>;
  switch (block.type) {
    case "image":
    case "document":
      return MEDIA_BLOCK_TOKENS;
    case "tool_use":
    case "server_tool_use":
      texts.push(String(block.name ?? ""), JSON.stringify(block.input ?? {}));
      return 0;
    case "tool_result":
      return collect(block.content, texts);
    case "thinking":
      texts.push(typeof block.thinking === "string" ? block.thinking : "");
      return 0;
    default:
      if (typeof block.text === "string") texts.push(block.text);
      return 0;
  }
}

/**
 * A local count of a Messages request's input tokens with a maintained BPE tokenizer (o200k_base),
 * used when no upstream can count: system, every message's text, tool calls and results, and the
 * tool definitions. Other models' tokenizers differ, which is why the answer is flagged `estimated`.
 */
export async function estimateTokenCount(request: CountTokensRequest): Promise<number> {
  const countTokens = await loadTokenizer();
  const texts: string[] = [];
  let tokens = collect(request.system ?? "", texts);
  for (const message of request.messages) tokens += MESSAGE_OVERHEAD + collect(message.content, texts);
  if (request.tools && request.tools.length > 0) texts.push(JSON.stringify(request.tools));
  for (const text of texts) if (text.length > 0) tokens += countTokens(text);
  return Math.max(1, tokens);
}
