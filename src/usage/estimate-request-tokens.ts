import { estimateTextTokens } from "../canonical/estimate-text-tokens.ts";
import type { ContentPart } from "../canonical/content-part.ts";
import type { CanonicalRequest } from "../canonical/request.ts";

/** Framing the models add around each turn, and a flat guess for an image or a binary document. */
const MESSAGE_OVERHEAD = 3;
const MEDIA_TOKENS = 1_000;

function partTokens(part: ContentPart): number {
  switch (part.type) {
    case "text":
      return estimateTextTokens(part.text);
    case "thinking":
      return estimateTextTokens(part.text);
    case "tool_call":
      return estimateTextTokens(part.name) + estimateTextTokens(part.arguments);
    case "tool_result":
      return part.content.reduce((sum, inner) => sum + partTokens(inner), 0);
    case "document":
      return part.source.kind === "text" ? estimateTextTokens(part.source.text) : MEDIA_TOKENS;
    case "image":
      return MEDIA_TOKENS;
    case "redacted_thinking":
      return 0;
    default: {
      const unknownPart: never = part;
      return unknownPart;
    }
  }
}

/**
 * The input tokens of a request, counted by the gateway: for a stream that ended before its
 * upstream said what the prompt cost (a Chat upstream reports it only at the end). System, every
 * message's text, tool calls and results, and the tool definitions; images and binary documents at
 * a flat guess. An estimate: the usage it goes into is marked so.
 */
export function estimateRequestTokens(request: CanonicalRequest): number {
  let tokens = request.system.reduce((sum, part) => sum + estimateTextTokens(part.text), 0);
  for (const message of request.messages) {
    tokens += MESSAGE_OVERHEAD;
    for (const part of message.content) tokens += partTokens(part);
  }
  for (const tool of request.tools) {
    tokens += tool.kind === "function" ? estimateTextTokens(`${tool.name} ${tool.description ?? ""} ${JSON.stringify(tool.inputSchema)}`) : estimateTextTokens(JSON.stringify(tool.raw));
  }
  return Math.max(1, tokens);
}
