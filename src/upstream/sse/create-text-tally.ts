import { estimateTextTokens } from "../../canonical/estimate-text-tokens.ts";

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
 * spent (the client left, the upstream cut it). Per piece: a push onto a list; the count (and the
 * `decode` of what a stream read as Latin-1) runs once per thousand characters, never on the
 * bytes of the stream.
 */
export function createTextTally(decode: (text: string) => string = (text) => text): TextTally {
  // The pieces since the last count, as they came: one list, emptied at each count (joined with
  // `+` as they came, they made a string cell a piece).
  const pending: string[] = [];
  let chars = 0;
  let counted = 0;
  return {
    add(text) {
      pending.push(text);
      chars += text.length;
      if (chars >= COUNT_EVERY_CHARS) {
        counted += estimateTextTokens(decode(pending.join("")));
        pending.length = 0;
        chars = 0;
      } else if (pending.length === COPY_EVERY_PIECES) {
        // Joined anew, the pieces' reads can go.
        const copy = pending.join("");
        pending.length = 0;
        pending.push(copy);
      }
    },
    tokens() {
      return counted + (chars === 0 ? 0 : estimateTextTokens(decode(pending.join(""))));
    },
  };
}
