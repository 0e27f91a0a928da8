const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;

/** What one pass over a JSON text's bytes found, before it is parsed. Offsets are byte offsets. */
export interface JsonScan {
  /** It nests arrays and objects deeper than the limit (the scan stopped there). */
  readonly tooDeep: boolean;
  /**
   * When the text is one object and `members` was asked for: each top-level member as
   * MEMBER_OFFSETS offsets, flat (src/canonical/member-offsets.ts says which). Meaningful only
   * for text that parses.
   */
  readonly members: readonly number[] | undefined;
  /**
   * Beside `members`, one entry a member: for a member whose value is an array, where each of its
   * elements starts and ends, flat; undefined for any other value. Meaningful only for text that
   * parses.
   */
  readonly elements: readonly (readonly number[] | undefined)[] | undefined;
}

/**
 * Where an element that the scan is about to read is known to end without reading it: given the
 * key of the member (its offsets, quotes included), the element's index in that member's array and
 * where the element starts (an object or an array), the offset just past its end, or -1 to read
 * it. Only for an element whose very bytes were read, at this depth, in an earlier body.
 */
export type SkipKnownElement = (keyStart: number, keyEnd: number, index: number, start: number) => number;

/**
 * One scan of JSON text, as the UTF-8 bytes it came in: whether it nests deeper than `limit`, and,
 * with `members`, where its top-level members and the elements of their array values lie, so a
 * body can later be sent on with members cut from the bytes as they came instead of serialised
 * again, and the parse can reuse elements it has read before. Bytes, not decoded text: every byte
 * JSON's structure is written in is ASCII, which no byte of a multi-byte UTF-8 sequence is, and a
 * comparison, hash or cut of bytes costs the same whatever characters the text holds (one
 * character past U+00FF makes a decoded body's string 16-bit, and each `startsWith` of it several
 * times slower). Strings are skipped by a native search for their closing quote; the scan stops at
 * the first bracket past the limit. Text that is not JSON may answer either way; the parse refuses
 * it after. With `skip`, an element it knows is passed over whole.
 */
export function scanJsonBytes(bytes: Uint8Array, limit: number, members: boolean, skip?: SkipKnownElement): JsonScan {
  const found: number[] | undefined = members ? [] : undefined;
  const arrays: (number[] | undefined)[] | undefined = members ? [] : undefined;
  let object = false;
  let depth = 0;
  // The member being read at depth 1: its key's start and end, its value's start and end so far.
  let keyStart = -1;
  let keyEnd = -1;
  let valueStart = -1;
  let valueEnd = -1;
  // The elements of the member's value when it is an array (read at depth 2), the one being read.
  let elements: number[] | undefined;
  let elementStart = -1;
  let elementEnd = -1;
  const endMember = () => {
    found!.push(keyStart, keyEnd, valueEnd, valueStart);
    arrays!.push(elements);
    keyStart = -1;
    valueStart = -1;
    elements = undefined;
  };
  const length = bytes.length;
  for (let i = 0; i < length; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      const start = i;
      // The closing quote is the next one not escaped: preceded by an even run of backslashes.
      for (;;) {
        const next = bytes.indexOf(QUOTE, i + 1);
        if (next < 0) return { tooDeep: false, members: undefined, elements: undefined };
        let slashes = 0;
        while (bytes[next - 1 - slashes] === BACKSLASH) slashes++;
        i = next;
        if ((slashes & 1) === 0) break;
      }
      if (depth === 1 && found) {
        if (keyStart < 0) {
          keyStart = start;
          keyEnd = i + 1;
        } else {
          if (valueStart < 0) valueStart = start;
          valueEnd = i + 1;
        }
      } else if (depth === 2 && elements) {
        if (elementStart < 0) elementStart = start;
        elementEnd = i + 1;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (depth === 0) object = c === OPEN_BRACE;
      else if (depth === 1 && found) {
        if (valueStart < 0) valueStart = i;
        if (c === OPEN_BRACKET) {
          elements = [];
          elementStart = -1;
        }
      } else if (depth === 2 && elements && elementStart < 0) {
        elementStart = i;
        const end = skip === undefined || !object ? -1 : skip(keyStart, keyEnd, elements.length / 2, i);
        if (end > i) {
          // The element as read before: its brackets balance and nest no deeper than they did then.
          elementEnd = end;
          i = end - 1;
          continue;
        }
      }
      if (++depth > limit) return { tooDeep: true, members: undefined, elements: undefined };
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      if (--depth === 1) {
        valueEnd = i + 1;
        if (elements && elementStart >= 0) {
          elements.push(elementStart, elementEnd);
          elementStart = -1;
        }
      } else if (depth === 2) elementEnd = i + 1;
      else if (depth === 0 && found && keyStart >= 0) endMember();
    } else if (c > SPACE) {
      if (depth === 1) {
        if (c === COMMA) {
          if (found) endMember();
        } else if (c !== COLON) {
          if (valueStart < 0 && keyStart >= 0) valueStart = i;
          valueEnd = i + 1;
        }
      } else if (depth === 2 && elements) {
        if (c === COMMA) {
          elements.push(elementStart, elementEnd);
          elementStart = -1;
        } else {
          if (elementStart < 0) elementStart = i;
          elementEnd = i + 1;
        }
      }
    }
  }
  return object ? { tooDeep: false, members: found, elements: arrays } : { tooDeep: false, members: undefined, elements: undefined };
}
