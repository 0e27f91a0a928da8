const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * How deeply a request body may nest arrays and objects. Real requests stay far below it (a tool's
 * JSON schema is the deepest part of an agent's request); past it, the recursive steps after the
 * parse (schema check, cache key, translation) would run out of stack.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one scan of the text
 * before it is parsed: brackets inside strings are skipped (each string by a native search for its
 * closing quote), and the scan stops at the first bracket past the limit. Text that is not JSON
 * may answer either way; the parse refuses it after.
 */
export function exceedsJsonDepth(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  // Fewer characters than the limit's brackets cannot nest that deep.
  if (text.length <= limit) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The closing quote is the next one not escaped: preceded by an even run of backslashes.
      for (;;) {
        const next = text.indexOf('"', i + 1);
        if (next < 0) return false;
        let slashes = 0;
        while (text.charCodeAt(next - 1 - slashes) === BACKSLASH) slashes++;
        i = next;
        if ((slashes & 1) === 0) break;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
