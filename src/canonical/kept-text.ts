/**
 * Text a stream sends piece by piece, kept until the answer ends (for the response cache, for the
 * Responses events that repeat an item's text whole). Mutated in place: one per block, never shared.
 */
export interface KeptText {
  /** Copies of what came before, in order. */
  readonly parts: string[];
  /** The pieces since the last copy, joined as they came. */
  tail: string;
  /** How many pieces the tail holds. */
  pieces: number;
}

/**
 * A piece of a decoded event may be a slice of the read it came in (the Chat decoder's shapes cut
 * it so), sharing that read's buffer, and a string joined from pieces keeps every piece, a cell
 * each. Kept as they came until the answer ended, the pieces held every read of the stream alive:
 * 100 streams of 2,000 Chat events, one event a read, held 66 MB for 14 K characters of text each
 * (bun:jsc heapStats after a collection). So the tail is copied out once it holds this many
 * pieces, or characters, and a stream holds about its own text and a few of its reads.
 */
const COPY_EVERY_PIECES = 32;
const COPY_EVERY_CHARS = 1024;

export const newKeptText = (): KeptText => ({ parts: [], tail: "", pieces: 0 });

/**
 * `text` in a buffer of its own. A slice of a joined string shares the joined string, and so its
 * pieces; reading a character of one makes the runtime write it out in a new buffer (which a
 * slice of it then shares alone). The character read is used, so no compiler drops the read.
 */
export function ownCopy(text: string): string {
  const joined = `${text} `;
  return joined.charCodeAt(0) >= 0 ? joined.slice(0, -1) : text;
}

export function keepText(kept: KeptText, piece: string): void {
  kept.tail += piece;
  if (++kept.pieces < COPY_EVERY_PIECES && kept.tail.length < COPY_EVERY_CHARS) return;
  kept.parts.push(ownCopy(kept.tail));
  kept.tail = "";
  kept.pieces = 0;
}

/** Everything kept, as one string. */
export function readKeptText(kept: KeptText): string {
  if (kept.parts.length === 0) return kept.tail;
  return kept.tail === "" && kept.parts.length === 1 ? kept.parts[0]! : kept.parts.join("") + kept.tail;
}
