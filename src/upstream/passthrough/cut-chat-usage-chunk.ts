import { asBuffer } from "../as-buffer.ts";

const EMPTY_CHOICES = Buffer.from('"choices":[]');
const DATA = Buffer.from("data:");
const EVENT_END = Buffer.from("\n\n");

export interface CutResult {
  readonly rest: Uint8Array;
  /** The removed chunk's JSON text, when one was removed. */
  readonly removed?: string;
}

/**
 * Removes a Chat stream's usage chunk (`"choices":[]`) from a piece of the stream. The gateway
 * asks every Chat upstream for usage so that it can account for the request; a client that did not
 * ask for the chunk must not get it. A usage chunk split across reads is left in place (rare, and
 * harmless to clients: the SDKs accept it).
 */
export function cutChatUsageChunk(chunk: Uint8Array): CutResult {
  const bytes = asBuffer(chunk);
  const at = bytes.indexOf(EMPTY_CHOICES);
  if (at < 0) return { rest: chunk };
  const start = bytes.lastIndexOf(DATA, at);
  const end = bytes.indexOf(EVENT_END, at);
  if (start < 0 || end < 0 || (start > 0 && bytes[start - 1] !== 10)) return { rest: chunk };
  const removed = bytes.subarray(start + DATA.length, end).toString("utf8").trim();
  return { rest: Buffer.concat([bytes.subarray(0, start), bytes.subarray(end + EVENT_END.length)]), removed };
}
