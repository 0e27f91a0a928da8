import { estimateTextTokens } from "../../canonical/estimate-text-tokens.ts";

/** The text a stream has sent (content, reasoning, tool arguments), counted in tokens as it goes. */
export interface TextTally {
  add(text: string): void;
  /** Tokens of everything added so far (an estimate: see estimateTextTokens). */
  tokens(): number;
}

/** Text is counted a few thousand characters at a time, so a stream holds at most that much of it. */
const COUNT_EVERY_CHARS = 4096;

/**
 * Counts what a stream sent, for the usage of a stream that ends before its upstream said what it
 * spent (the client left, the upstream cut it). Per piece: one string append; the count (and the
 * `decode` of what a stream read as Latin-1) runs once
 * per few thousand characters, never on the bytes of the stream.
 */
export function createTextTally(decode: (text: string) => string = (text) => text): TextTally {
  let pending = "";
  let counted = 0;
  return {
    add(text) {
      pending += text;
      if (pending.length >= COUNT_EVERY_CHARS) {
        counted += estimateTextTokens(decode(pending));
        pending = "";
      }
    },
    tokens() {
      return counted + (pending === "" ? 0 : estimateTextTokens(decode(pending)));
    },
  };
}
