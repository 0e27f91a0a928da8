import type { OutputPart } from "../canonical/content-part.ts";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { StreamEvent } from "../canonical/stream-event.ts";
import { keepText, newKeptText, readKeptText, type KeptText } from "../canonical/kept-text.ts";
import { STREAM_KEEP_LIMIT } from "./stream-keep-limit.ts";

type Block =
  | { type: "text"; text: KeptText }
  | { type: "thinking"; text: KeptText; signature: KeptText }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_call"; id: string; name: string; arguments: KeptText };

/** What has been seen of a stream so far. Mutated in place: one per stream, never shared. */
export interface StreamCollector {
  id: string;
  model: string;
  readonly blocks: Block[];
  response: CanonicalResponse | null;
  /** An error ended the stream, or it outgrew what is kept: nothing is collected, nothing rebuilt. */
  failed: boolean;
  /** Characters of text, arguments, signatures and redacted thinking collected so far. */
  chars: number;
  /** Told the answer's text kept so far (see `sentTexts`) once, when the stream outgrows what is kept, just before it is let go. */
  readonly outgrown: ((texts: readonly string[]) => void) | undefined;
}

export const newStreamCollector = (outgrown?: (texts: readonly string[]) => void): StreamCollector => ({
  id: "",
  model: "",
  blocks: [],
  response: null,
  failed: false,
  chars: 0,
  outgrown,
});

/** Counts what a delta adds; past the limit the stream is given up and what it held let go. */
function grow(collector: StreamCollector, chars: number): boolean {
  collector.chars += chars;
  if (collector.chars <= STREAM_KEEP_LIMIT) return true;
  collector.outgrown?.(sentTexts(collector));
  collector.failed = true;
  collector.blocks.length = 0;
  return false;
}

/**
 * The answer's text collected so far as its client reads it, block by block: text, thinking, and
 * each tool call's name and arguments (no signature, no redacted thinking). Kept until the stream
 * ends, or outgrows what is kept, or an error ends it (then as it was at the error).
 */
export function sentTexts(collector: StreamCollector): string[] {
  const texts: string[] = [];
  for (const block of collector.blocks) {
    if (block === undefined) continue;
    if (block.type === "text" || block.type === "thinking") texts.push(readKeptText(block.text));
    else if (block.type === "tool_call") texts.push(block.name, readKeptText(block.arguments));
  }
  return texts;
}

function toPart(block: Block): OutputPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: readKeptText(block.text) };
    case "thinking": {
      const signature = readKeptText(block.signature);
      return signature ? { type: "thinking", text: readKeptText(block.text), signature } : { type: "thinking", text: readKeptText(block.text) };
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_call":
      return { type: "tool_call", id: block.id, name: block.name, arguments: readKeptText(block.arguments) };
    default: {
      const unknownBlock: never = block;
      throw new Error(`unknown block ${String(unknownBlock)}`);
    }
  }
}

/**
 * Rebuilds the complete answer from a canonical stream as it goes by, so a streamed answer can be
 * stored in the response cache. `collector.response` is set only by a clean `finish`; an `error`,
 * a stream that simply stops, or one whose text outgrows STREAM_KEEP_LIMIT leaves nothing to store.
 */
export function collectStreamResponse(collector: StreamCollector, event: StreamEvent): void {
  if (collector.failed || collector.response) return;
  const block = "index" in event ? collector.blocks[event.index] : undefined;
  switch (event.type) {
    case "start":
      collector.id = event.id;
      collector.model = event.model;
      return;
    case "block_start": {
      const b = event.block;
      if (b.type === "redacted_thinking" && !grow(collector, b.data.length)) return;
      collector.blocks[event.index] =
        b.type === "text"
          ? { type: "text", text: newKeptText() }
          : b.type === "thinking"
            ? { type: "thinking", text: newKeptText(), signature: newKeptText() }
            : b.type === "redacted_thinking"
              ? { type: "redacted_thinking", data: b.data }
              : { type: "tool_call", id: b.id, name: b.name, arguments: newKeptText() };
      return;
    }
    case "text_delta":
      if (block?.type === "text" && grow(collector, event.text.length)) keepText(block.text, event.text);
      return;
    case "thinking_delta":
      if (block?.type === "thinking" && grow(collector, event.text.length)) keepText(block.text, event.text);
      return;
    case "signature_delta":
      if (block?.type === "thinking" && grow(collector, event.signature.length)) keepText(block.signature, event.signature);
      return;
    case "tool_args_delta":
      if (block?.type === "tool_call" && grow(collector, event.fragment.length)) keepText(block.arguments, event.fragment);
      return;
    case "block_stop":
      return;
    case "finish":
      collector.response = {
        id: collector.id,
        model: collector.model,
        content: collector.blocks.filter((b) => b !== undefined).map(toPart),
        stopReason: event.stopReason,
        usage: event.usage,
      };
      return;
    case "error":
      collector.failed = true;
      return;
    default: {
      const unknownEvent: never = event;
      throw new Error(`unknown stream event ${String(unknownEvent)}`);
    }
  }
}
