import type { OutputPart } from "../canonical/content-part.ts";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { StreamEvent } from "../canonical/stream-event.ts";

function partEvents(part: OutputPart, index: number): StreamEvent[] {
  switch (part.type) {
    case "text":
      return [{ type: "block_start", index, block: { type: "text" } }, { type: "text_delta", index, text: part.text }, { type: "block_stop", index }];
    case "thinking":
      return [
        { type: "block_start", index, block: { type: "thinking" } },
        { type: "thinking_delta", index, text: part.text },
        ...(part.signature ? [{ type: "signature_delta", index, signature: part.signature } as const] : []),
        { type: "block_stop", index },
      ];
    case "redacted_thinking":
      return [{ type: "block_start", index, block: { type: "redacted_thinking", data: part.data } }, { type: "block_stop", index }];
    case "tool_call":
      return [
        { type: "block_start", index, block: { type: "tool_call", id: part.id, name: part.name } },
        { type: "tool_args_delta", index, fragment: part.arguments },
        { type: "block_stop", index },
      ];
    default: {
      const unknownPart: never = part;
      throw new Error(`unknown output part ${String(unknownPart)}`);
    }
  }
}

/**
 * A cached answer as a canonical stream (one delta per block), for a hit the client asked to
 * receive as a stream: feed it to the client format's stream encoder.
 */
export function replayResponseEvents(response: CanonicalResponse): StreamEvent[] {
  return [
    { type: "start", id: response.id, model: response.model, usage: { ...response.usage, outputTokens: 0, reasoningTokens: 0 } },
    ...response.content.flatMap(partEvents),
    { type: "finish", stopReason: response.stopReason, usage: response.usage },
  ];
}
