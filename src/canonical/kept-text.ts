/**
 * Text a stream sends piece by piece, kept until the answer ends (for the response cache, for the
 * Responses events that repeat an item's text whole). Mutated in place: one per block, never shared.
 */
export interface KeptText {
  /** Copies of what came before, in order. */
  readonly parts: string[];
  /** The pieces since the last copy, as they came: one list, emptied at each copy. */
  readonly pending: string[];
  /** Characters the pending pieces hold. */
  chars: number;
}

/**
 * A piece of a decoded event may be a slice of the read it came in (the Chat decoder's shapes cut
 * it so), sharing that read's buffer, and a string joined from pieces keeps every piece, a cell
 * each. Kept as they came until the answer ended, the pieces held every read of the stream alive:
 * 100 streams of 2,000 Chat events, one event a read, held 66 MB for 14 K characters of text each
 * (bun:jsc heapStats after a collection). So the pieces are copied out once there are this many,
 * or characters, and a stream holds about its own text and a few of its reads. They wait in a list,
 * not joined with `+` as they come: that made a string cell a piece, which the copy threw away.
 */
const COPY_EVERY_PIECES = 32;
const COPY_EVERY_CHARS = 1024;

export const newKeptText = (): KeptText => ({ parts: [], pending: [], chars: 0 });

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
  const { pending } = kept;
  pending.push(piece);
  kept.chars += piece.length;
  if (pending.length < COPY_EVERY_PIECES && kept.chars < COPY_EVERY_CHARS) return;
  kept.parts.push(copyOut(pending));
  pending.length = 0;
  kept.chars = 0;
}

/** The pending pieces in one string of its own: a join writes several out anew, one alone is copied. */
const copyOut = (pending: readonly string[]): string => (pending.length === 1 ? ownCopy(pending[0]!) : pending.join(""));

/** Everything kept, as one string. */
export function readKeptText(kept: KeptText): string {
  const { parts, pending } = kept;
  const tail = pending.length === 1 ? pending[0]! : pending.join("");
  if (parts.length === 0) return tail;
  return tail === "" && parts.length === 1 ? parts[0]! : parts.join("") + tail;
}
