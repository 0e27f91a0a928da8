import { estimateTextTokens } from "../../canonical/estimate-text-tokens.ts";
import { ownCopy } from "../../canonical/kept-text.ts";

/** The text a stream has sent (content, reasoning, tool arguments), counted in tokens as it goes. */
export interface TextTally {
  add(text: string): void;
  /** Tokens of everything added so far (an estimate: see estimateTextTokens). */
  tokens(): number;
}

/**
 * Text is counted a thousand characters at a time, so a stream holds at most that much of it. Each
 * piece held can keep the whole event it was cut from alive: 300 tallies of 10,000 pieces sliced
 * from chunk texts held about 59 KB each at 4,096 characters and 9 KB at 1,024 (bun:jsc
 * memoryUsage, above tallies that hold nothing); the count itself costs the same per character.
 */
const COUNT_EVERY_CHARS = 1024;
/**
 * A piece sliced from a read keeps the read alive: a thousand characters of a Chat stream's
 * deltas (a few characters each, one event a read) held 29 KB a stream. So the text waiting is also
 * copied out every this many pieces (6.7 KB), which costs a copy where counting would cost a parse.
 */
const COPY_EVERY_PIECES = 32;

/**
 * Counts what a stream sent, for the usage of a stream that ends before its upstream said what it
 * spent (the client left, the upstream cut it). Per piece: one string append; the count (and the
 * `decode` of what a stream read as Latin-1) runs once per thousand characters, never on the
 * bytes of the stream.
 */
export function createTextTally(decode: (text: string) => string = (text) => text): TextTally {
  let pending = "";
  let pieces = 0;
  let counted = 0;
  return {
    add(text) {
      pending += text;
      if (pending.length >= COUNT_EVERY_CHARS) {
        counted += estimateTextTokens(decode(pending));
        pending = "";
        pieces = 0;
      } else if (++pieces === COPY_EVERY_PIECES) {
        pending = ownCopy(pending);
        pieces = 0;
      }
    },
    tokens() {
      return counted + (pending === "" ? 0 : estimateTextTokens(decode(pending)));
    },
  };
}
