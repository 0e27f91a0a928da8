const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;

/** What one pass over a JSON text found, before it is parsed. */
export interface JsonTextScan {
  /** It nests arrays and objects deeper than the limit (the scan stopped there). */
  readonly tooDeep: boolean;
  /**
   * When the text is one object and `members` was asked for: each top-level member as three
   * offsets, flat: where its key's opening quote is, where its key ends (after the closing
   * quote), where its value ends (after its last character). Meaningful only for text that parses.
   */
  readonly members: readonly number[] | undefined;
}

/**
 * One scan of JSON text: whether it nests deeper than `limit`, and, with `members`, where its
 * top-level members lie, so a body can later be sent on with members cut from the text as it came
 * instead of serialised again. Strings are skipped by a native search for their closing quote;
 * the scan stops at the first bracket past the limit. Text that is not JSON may answer either way;
 * the parse refuses it after.
 */
export function scanJsonText(text: string, limit: number, members: boolean): JsonTextScan {
  const found: number[] | undefined = members ? [] : undefined;
  let object = false;
  let depth = 0;
  // The member being read at depth 1: its key's start and end, its value's end so far.
  let keyStart = -1;
  let keyEnd = -1;
  let valueEnd = -1;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      // The closing quote is the next one not escaped: preceded by an even run of backslashes.
      for (;;) {
        const next = text.indexOf('"', i + 1);
        if (next < 0) return { tooDeep: false, members: undefined };
        let slashes = 0;
        while (text.charCodeAt(next - 1 - slashes) === BACKSLASH) slashes++;
        i = next;
        if ((slashes & 1) === 0) break;
      }
      if (depth === 1 && found) {
        if (keyStart < 0) {
          keyStart = start;
          keyEnd = i + 1;
        } else valueEnd = i + 1;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (depth === 0) object = c === OPEN_BRACE;
      if (++depth > limit) return { tooDeep: true, members: undefined };
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      if (--depth === 1) valueEnd = i + 1;
      else if (depth === 0 && found && keyStart >= 0) found.push(keyStart, keyEnd, valueEnd);
    } else if (depth === 1 && c > SPACE && c !== COLON) {
      if (c !== COMMA) valueEnd = i + 1;
      else if (found) {
        found.push(keyStart, keyEnd, valueEnd);
        keyStart = -1;
      }
    }
  }
  return { tooDeep: false, members: object ? found : undefined };
}
