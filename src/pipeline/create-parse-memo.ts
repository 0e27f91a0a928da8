import { freezeLevels } from "../canonical/freeze-levels.ts";

/**
 * A piece of JSON text parsed before, kept with the text it was parsed from; or, for a piece seen
 * once, only the note that it was (no text, no value).
 */
interface Remembered {
  /**
   * The piece as it came, a copy of its own (a slice would keep the whole body it came from
   * alive): its bytes when the body's text and bytes had the same offsets, else its text.
   */
  readonly text: Buffer | string | undefined;
  readonly value: unknown;
  /** What it counts against the budget, in characters. */
  readonly size: number;
  /** Read again since the eviction scan last passed it: it gets one more round. */
  hot: boolean;
}

/** One account's remembered pieces, by a hash of their text and its length. */
type Pieces = Map<number, Remembered>;

/** Reads pieces of one account's request bodies, reusing what its earlier requests parsed. */
export interface ParseScope {
  /**
   * The value of the JSON text `text.slice(start, end)`: the one kept when the account sent that
   * very text before, else parsed now (throws as `JSON.parse` does). A kept value is shared with
   * the account's later requests: it and its first levels are frozen, and nothing may change it.
   * `bytes`, when given, are what `text` was decoded from, one byte a character (ASCII): the
   * piece is then found and compared by its bytes, and kept as a copy of them, half the memory of
   * a copy of the text.
   */
  read(text: string, start: number, end: number, bytes?: Uint8Array): unknown;
}

export interface ParseMemo {
  /** The pieces of this account (a scope never reads another account's). */
  scope(accountId: string): ParseScope;
  /** Characters of text remembered now, over all accounts. */
  readonly chars: number;
}

/** Below this a piece is parsed every time: remembering it costs more than parsing it. */
const MIN_PIECE_CHARS = 64;
/** What the note of a piece seen once counts against the budget (a map entry and a small object). */
const SEEN_SIZE = 64;
/** Levels of a remembered value frozen: a message, its content list, its blocks. */
const FROZEN_LEVELS = 3;

/** A copy of `piece` that holds only its own characters. */
const ownCopy = (piece: string): string => Buffer.from(piece, "utf8").toString("utf8");

/** Whether `kept` is the piece: the same bytes, or the same text. */
function isPiece(kept: Buffer | string, text: string, start: number, end: number, bytes: Uint8Array | undefined): boolean {
  if (typeof kept === "string") return kept === text.slice(start, end);
  return bytes !== undefined && kept.equals(bytes.subarray(start, end));
}

/**
 * Parsed pieces of request bodies (a conversation's messages, its tools), by account, so a coding
 * agent's next turn, which sends the whole conversation again, parses only what is new in it. A
 * piece is found by a hash of its text and its length and reused only when its text is the same,
 * character for character. A piece is kept from its second sighting on: keeping costs about as
 * much again as parsing (a copy of the text, freezing the value), which a body sent only once
 * never earns back. Bounded by the characters of text remembered (with the parsed values and the
 * decoded messages, about 6 bytes of memory a character): past `maxChars`, the accounts used
 * longest ago lose their pieces first, each piece read again since the last pass getting one more
 * round.
 */
export function createParseMemo(options: { readonly maxChars: number }): ParseMemo {
  const accounts = new Map<string, Pieces>();
  let chars = 0;

  /**
   * Drops pieces until an eighth of the budget is free: a pass walks the maps from their oldest
   * entries, over what earlier passes deleted, so passes must be rare (one per piece over the budget
   * made each insertion cost more than the last: 0.7 MB bodies of 9,900 small pieces took 42 ms, then
   * 128, 203 and 288 ms). `current`, the map being written, stays registered even when emptied.
   */
  function evict(current: Pieces): void {
    const target = options.maxChars - Math.floor(options.maxChars / 8);
    for (const [accountId, pieces] of accounts) {
      for (const [key, piece] of pieces) {
        if (chars <= target) return;
        pieces.delete(key);
        if (piece.hot) {
          piece.hot = false;
          pieces.set(key, piece);
        } else chars -= piece.size;
      }
      if (pieces.size === 0 && pieces !== current) accounts.delete(accountId);
    }
  }

  function remember(pieces: Pieces, key: number, piece: Remembered): void {
    pieces.set(key, piece);
    chars += piece.size;
    if (chars > options.maxChars) evict(pieces);
  }

  /** The account's pieces, moved last: eviction starts with the accounts used longer ago. */
  function piecesOf(accountId: string): Pieces {
    let pieces = accounts.get(accountId);
    if (pieces) accounts.delete(accountId);
    else pieces = new Map();
    accounts.set(accountId, pieces);
    return pieces;
  }

  function scope(accountId: string): ParseScope {
    // Looked up at the first read, when the body is there: while it was awaited, eviction may have
    // dropped the account's map.
    let own: Pieces | undefined;
    return {
      read(text, start, end, bytes) {
        const length = end - start;
        if (length < MIN_PIECE_CHARS) return JSON.parse(text.slice(start, end));
        own ??= piecesOf(accountId);
        // 32 bits of hash and 21 of length: one number, exact below 2^53. CRC-32 of ASCII text and
        // of its bytes agree, so a piece kept either way is found either way.
        const key = Bun.hash.crc32(bytes ? bytes.subarray(start, end) : text.slice(start, end)) * 0x200000 + (length & 0x1fffff);
        const known = own.get(key);
        if (known?.text !== undefined && isPiece(known.text, text, start, end, bytes)) {
          known.hot = true;
          return known.value;
        }
        const piece = text.slice(start, end);
        if (known === undefined) {
          remember(own, key, { text: undefined, value: undefined, size: SEEN_SIZE, hot: false });
          return JSON.parse(piece);
        }
        // Seen before (or another piece under the same key): kept from now on, unless a copy of
        // the text is not the text (a lone surrogate, which text decoded from bytes never holds).
        const value: unknown = JSON.parse(piece);
        let copy: Buffer | string;
        // A copy (a Buffer's slice would be a view of the whole body), kept as a Buffer: comparing
        // it then makes no wrapper object, which a conversation's hundreds of pieces felt.
        if (bytes) copy = Buffer.from(bytes.subarray(start, end));
        else {
          copy = ownCopy(piece);
          if (copy !== piece) return value;
        }
        if (typeof value === "object" && value !== null) freezeLevels(value, FROZEN_LEVELS);
        chars -= known.size;
        remember(own, key, { text: copy, value, size: length, hot: false });
        return value;
      },
    };
  }

  return {
    scope,
    get chars() {
      return chars;
    },
  };
}
