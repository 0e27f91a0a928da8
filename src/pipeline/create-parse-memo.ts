import { freezeLevels } from "../canonical/freeze-levels.ts";
import type { SkipKnownElement } from "./scan-json-bytes.ts";
import { decodeUtf8 } from "./decode-utf8.ts";
import { hasBytesAt } from "../canonical/has-bytes-at.ts";

/**
 * A piece of a JSON body parsed before, kept with the bytes it was parsed from; or, for a piece
 * seen once, only the note that it was (no bytes, no value).
 */
interface Remembered {
  /**
   * The piece's bytes as they came, a copy of their own (a view would keep the whole body they
   * came from alive). Cleared with `value` when the piece is evicted (the account's last order may
   * still name it).
   */
  bytes: Uint8Array | undefined;
  value: unknown;
  /** What it counts against the budget, in bytes of text. */
  readonly size: number;
  /** Read again since the eviction scan last passed it: it gets one more round. */
  hot: boolean;
}

/** One account's remembered pieces, by a hash of their bytes and their length. */
type Pieces = Map<number, Remembered>;

/** Where a piece sat in a body: the member (its key as written, quotes included) and its index in that member's array. */
export interface PieceSlot {
  readonly member: string;
  readonly index: number;
}

/** The pieces of an account's last big body, by member and index: what its next body most likely repeats, in place. */
type Order = Map<string, Remembered[]>;

/** Reads pieces of one account's request bodies, reusing what its earlier requests parsed. */
export interface ParseScope {
  /**
   * The value of the JSON text in `bytes[start, end)` (UTF-8): the one kept when the account sent
   * those very bytes before, else decoded and parsed now (throws as `JSON.parse` does). A kept
   * value is shared with the account's later requests: it and its first levels are frozen, and
   * nothing may change it.
   */
  read(bytes: Uint8Array, start: number, end: number, slot?: PieceSlot): unknown;
  /**
   * For the scan of a body's bytes: where an element ends when its bytes are those of the piece at
   * the same slot of the account's last body (an agent's next turn repeats its conversation, in
   * order), -1 otherwise. The piece is then read from the kept value by `read` for these very
   * bytes, with no hash and no search.
   */
  skipper?(bytes: Uint8Array): SkipKnownElement;
  /**
   * Whether the account has kept the first of these pieces of `bytes` that is big enough to keep
   * (the conversation's opening message, which its later turns repeat). When it has not (a
   * conversation's first or second sight), the body is parsed whole and its pieces handed to `note`.
   */
  keepsFirst?(bytes: Uint8Array, pieces: readonly { readonly start: number; readonly end: number }[]): boolean;
  /**
   * The piece `bytes[start, end)` at `slot`, whose value `value` a whole parse of the body made:
   * noted, or kept from its second sighting (`value` is then frozen and shared), as `read` does,
   * without a parse of its own.
   */
  note?(bytes: Uint8Array, start: number, end: number, slot: PieceSlot | undefined, value: unknown): void;
}

export interface ParseMemo {
  /** The pieces of this account (a scope never reads another account's). */
  scope(accountId: string): ParseScope;
  /** Bytes of text remembered now, over all accounts (a character of ASCII is one). */
  readonly chars: number;
}

/** What `readKnown` is given for a piece no parse has read yet. */
const UNPARSED: unique symbol = Symbol("unparsed");

/** `given`, or the piece `bytes[start, end)` decoded and parsed when it is UNPARSED. */
const pieceValue = (given: unknown, bytes: Uint8Array, start: number, end: number): unknown =>
  given === UNPARSED ? JSON.parse(decodeUtf8(bytes, start, end)) : given;

/** Below this a piece is parsed every time: remembering it costs more than parsing it. */
const MIN_PIECE_BYTES = 64;
/** What the note of a piece seen once counts against the budget (a map entry and a small object). */
const SEEN_SIZE = 64;
/** Levels of a remembered value frozen: a message, its content list, its blocks. */
const FROZEN_LEVELS = 3;

/** A piece's key among its account's: 32 bits of hash and 21 of length, one number, exact below 2^53. */
const keyOf = (bytes: Uint8Array, start: number, end: number): number => Bun.hash.crc32(bytes.subarray(start, end)) * 0x200000 + ((end - start) & 0x1fffff);

/**
 * A copy of `bytes[start, end)` in memory of its own: a view would keep the whole body alive (and a
 * Buffer's `slice` is a view).
 */
function ownCopy(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const copy = new Uint8Array(end - start);
  copy.set(bytes.subarray(start, end));
  return copy;
}

/** Whether `kept` is the piece `bytes[start, end)`, compared in place. */
const isPiece = (kept: Uint8Array, bytes: Uint8Array, start: number, end: number): boolean => kept.length === end - start && hasBytesAt(bytes, start, kept);

/**
 * Parsed pieces of request bodies (a conversation's messages, its tools), by account, so a coding
 * agent's next turn, which sends the whole conversation again, decodes and parses only what is new
 * in it. A piece is found by a hash of its bytes and their length and reused only when its bytes
 * are the same, byte for byte. A piece is kept from its second sighting on: keeping costs about as
 * much again as parsing (a copy of the bytes, freezing the value), which a body sent only once
 * never earns back. Bounded by the bytes of text remembered (with the parsed values and the
 * decoded messages, about 6 bytes of memory a byte of ASCII): past `maxChars`, the accounts used
 * longest ago lose their pieces first, each piece read again since the last pass getting one more
 * round. Each account's last body is also kept as an order of its pieces, by member and index: the
 * scan of its next body passes over an element whose bytes are the piece's at that place (an
 * agent's conversation, sent again with a turn more), with no walk of its bytes and no hash.
 */
export function createParseMemo(options: { readonly maxChars: number }): ParseMemo {
  const accounts = new Map<string, Pieces>();
  /** Each account's last body's pieces in place (the slots read through `read`), dropped with its pieces. */
  const orders = new Map<string, Order>();
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
        } else {
          chars -= piece.size;
          // An order may still name it: what it held goes now, and no skip can match it.
          piece.bytes = undefined;
          piece.value = undefined;
        }
      }
      if (pieces.size === 0 && pieces !== current) {
        accounts.delete(accountId);
        orders.delete(accountId);
      }
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
    /** This body's pieces in place, the account's order from its first read on. */
    let order: Order | undefined;
    /**
     * The body whose scan passed over elements, where those start (in order) and the pieces they
     * are; `cursor` follows the reads, which come in the same order: no map, no hash.
     */
    let skipped: Uint8Array | undefined;
    let passedAt: number[] = [];
    let passedPieces: Remembered[] = [];
    let cursor = 0;

    /** The member placed last, and its list: a body's pieces come member by member. */
    let placing: string | undefined;
    let placed: Remembered[] = [];

    function place(slot: PieceSlot | undefined, piece: Remembered): void {
      if (slot === undefined) return;
      if (slot.member !== placing) {
        if (order === undefined) orders.set(accountId, (order = new Map()));
        placing = slot.member;
        let list = order.get(placing);
        if (list === undefined) order.set(placing, (list = []));
        placed = list;
      }
      placed[slot.index] = piece;
    }

    return {
      skipper(bytes) {
        const last = orders.get(accountId);
        skipped = bytes;
        passedAt = [];
        passedPieces = [];
        cursor = 0;
        if (last === undefined) return () => -1;
        let member = -1;
        let list: Remembered[] | undefined;
        // Named, so a profile tells its time from the other closures'.
        return function skipKnownElement(keyStart, keyEnd, index, at) {
          if (keyStart !== member) {
            member = keyStart;
            list = last.get(decodeUtf8(bytes, keyStart, keyEnd));
          }
          const piece = list?.[index];
          const kept = piece?.bytes;
          if (kept === undefined || !hasBytesAt(bytes, at, kept)) return -1;
          passedAt.push(at);
          passedPieces.push(piece!);
          return at + kept.length;
        };
      },
      read(bytes, start, end, slot) {
        const length = end - start;
        if (length < MIN_PIECE_BYTES) return JSON.parse(decodeUtf8(bytes, start, end));
        own ??= piecesOf(accountId);
        // Passed over by the scan of these very bytes, the piece, unless evicted since.
        let known: Remembered | undefined;
        if (bytes === skipped) {
          while (cursor < passedAt.length && passedAt[cursor]! < start) cursor++;
          if (passedAt[cursor] === start) known = passedPieces[cursor];
        }
        if (known?.bytes !== undefined && known.size === length) {
          known.hot = true;
          place(slot, known);
          return known.value;
        }
        const found = readKnown(own, bytes, start, end, UNPARSED);
        place(slot, found.piece);
        return found.value;
      },
      keepsFirst(bytes, pieces) {
        const first = pieces.find(({ start, end }) => end - start >= MIN_PIECE_BYTES);
        if (first === undefined) return false;
        if (bytes === skipped && passedAt.includes(first.start)) return true;
        const kept = accounts.get(accountId)?.get(keyOf(bytes, first.start, first.end))?.bytes;
        return kept !== undefined && isPiece(kept, bytes, first.start, first.end);
      },
      note(bytes, start, end, slot, value) {
        if (end - start < MIN_PIECE_BYTES) return;
        own ??= piecesOf(accountId);
        place(slot, readKnown(own, bytes, start, end, value).piece);
      },
    };
  }

  /**
   * A piece read through the account's pieces: the kept value, or `given` (parsed now when it is
   * UNPARSED), and noted, or kept. A value, not a function to make it: a closure would cost each
   * read a scope for the variables it captures, taken or not.
   */
  function readKnown(own: Pieces, bytes: Uint8Array, start: number, end: number, given: unknown): { piece: Remembered; value: unknown } {
    const length = end - start;
    const key = keyOf(bytes, start, end);
    const known = own.get(key);
    if (known?.bytes !== undefined && isPiece(known.bytes, bytes, start, end)) {
      known.hot = true;
      return { piece: known, value: known.value };
    }
    if (known === undefined) {
      const seen: Remembered = { bytes: undefined, value: undefined, size: SEEN_SIZE, hot: false };
      remember(own, key, seen);
      return { piece: seen, value: pieceValue(given, bytes, start, end) };
    }
    // Seen before (or another piece under the same key): kept from now on.
    const value = pieceValue(given, bytes, start, end);
    if (typeof value === "object" && value !== null) freezeLevels(value, FROZEN_LEVELS);
    chars -= known.size;
    // Another piece under the same key goes: an order naming it must not hold it past the budget.
    known.bytes = undefined;
    known.value = undefined;
    const kept: Remembered = { bytes: ownCopy(bytes, start, end), value, size: length, hot: false };
    remember(own, key, kept);
    return { piece: kept, value };
  }

  return {
    scope,
    get chars() {
      return chars;
    },
  };
}
