import { estimateTextTokens } from "../canonical/estimate-text-tokens.ts";
import type { CountTokensRequest } from "../wire/messages/schema.ts";
import { createTokenizerThread, type TokenizerThread } from "./create-tokenizer-thread.ts";

/** One thread for the process, started by the first count (see createTokenizerThread). */
const sharedTokenizer = createTokenizerThread();

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

/** The texts' tokens by the quick count, for when the tokenizer's thread could not count them. */
function estimateTexts(texts: readonly string[]): number {
  let tokens = 0;
  for (const text of texts) tokens += estimateTextTokens(text);
  return tokens;
}

/**
 * A local count of a Messages request's input tokens with a maintained BPE tokenizer (o200k_base,
 * on a thread of its own), used when no upstream can count: system, every message's text, tool
 * calls and results, and the tool definitions. Should that thread fail, the quick count
 * (`estimateTextTokens`) stands in. Other models' tokenizers differ, which is why the answer is
 * flagged `estimated`.
 */
export async function estimateTokenCount(request: CountTokensRequest, tokenizer: TokenizerThread = sharedTokenizer): Promise<number> {
  const texts: string[] = [];
  let tokens = collect(request.system ?? "", texts);
  for (const message of request.messages) tokens += MESSAGE_OVERHEAD + collect(message.content, texts);
  if (request.tools && request.tools.length > 0) texts.push(JSON.stringify(request.tools));
  tokens += await tokenizer.count(texts).catch(() => estimateTexts(texts));
  return Math.max(1, tokens);
}
