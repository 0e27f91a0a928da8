import type { ParseScope, PieceSlot } from "./create-parse-memo.ts";
import { readJsonStringAt } from "../wire/scan-json-string.ts";
import { MEMBER_OFFSETS } from "../canonical/member-offsets.ts";
import type { JsonScan } from "./scan-json-bytes.ts";
import { decodeUtf8 } from "./decode-utf8.ts";

/** A member's value this many bytes or more is read in pieces (its elements when it is an array). */
const MIN_PIECED_BYTES = 1024;
/**
 * More pieces than this and the body is parsed whole: a piece costs a hash, a lookup and a parse of
 * its own, several times what the whole parse spends on it, and a conversation has hundreds of
 * messages, not hundreds of thousands (a 32 MB body of tiny elements would cost five times its parse).
 */
const MAX_PIECES = 10_000;

/** One piece of a body: its member (the key, and the key as written), its place in the member's array, where its bytes lie. */
interface Piece {
  readonly key: string;
  /** The key as written, quotes included: it names the piece's place for the memo (see ParseScope.skipper). */
  readonly member: string;
  /** -1 for a member's whole value. */
  readonly index: number;
  /** How many elements the array has, by the scan. */
  readonly count: number;
  readonly start: number;
  readonly end: number;
}

/**
 * The pieces of `bytes`, a JSON object as `scan` (with members) found it: each big member's value,
 * or each element of a big array. Undefined when the body is not read so (a repeated or odd key,
 * no members found, more pieces than a conversation has).
 */
function listPieces(bytes: Uint8Array, scan: JsonScan): Piece[] | undefined {
  const { members, elements } = scan;
  if (!members || !elements) return undefined;
  let count = 0;
  for (let m = 0, i = 0; i < members.length; m++, i += MEMBER_OFFSETS) {
    if (members[i + 2]! - members[i + 3]! >= MIN_PIECED_BYTES) count += (elements[m]?.length ?? 2) / 2;
  }
  if (count > MAX_PIECES) return undefined;
  const pieces: Piece[] = [];
  const keys = new Set<string>();
  for (let m = 0, i = 0; i < members.length; m++, i += MEMBER_OFFSETS) {
    const member = decodeUtf8(bytes, members[i]!, members[i + 1]!);
    const key = readJsonStringAt(member, 0, member.length);
    // With a repeated key the last value counts, which the pieces cannot tell; `__proto__` is an own member only as the parse makes it.
    if (key === undefined || key === "__proto__" || keys.has(key)) return undefined;
    keys.add(key);
    const valueEnd = members[i + 2]!;
    const valueStart = members[i + 3]!;
    if (valueEnd - valueStart < MIN_PIECED_BYTES) continue;
    const items = elements[m];
    if (items === undefined) {
      pieces.push({ key, member, index: -1, count: 0, start: valueStart, end: valueEnd });
      continue;
    }
    for (let e = 0; e < items.length; e += 2) pieces.push({ key, member, index: e / 2, count: items.length / 2, start: items[e]!, end: items[e + 1]! });
  }
  return pieces;
}

/** Where a piece sits for the memo (its member and index): the piece itself, for an element of an array; no new object a piece. */
const slotOf = (piece: Piece): PieceSlot | undefined => (piece.index < 0 ? undefined : piece);

/** The digit a piece stands in as in the skeleton. */
const ZERO = 0x30;
/** A gap this short is copied byte by byte: a view of it would cost more than the copy. */
const SHORT_GAP = 64;

/**
 * `bytes` with each piece replaced by `0`: what is left of a body once its pieces are read through
 * the memo (its other members, the separators), parsed as one text. Undefined when the pieces
 * overlap or are out of order.
 */
function skeletonOf(bytes: Uint8Array, pieces: readonly Piece[]): string | undefined {
  let size = bytes.length;
  let at = 0;
  for (const { start, end } of pieces) {
    if (start < at || end <= start) return undefined;
    size -= end - start - 1;
    at = end;
  }
  const out = new Uint8Array(size);
  at = 0;
  let written = 0;
  const copy = (start: number, end: number) => {
    if (end - start < SHORT_GAP) for (let i = start; i < end; i++) out[written++] = bytes[i]!;
    else {
      out.set(bytes.subarray(start, end), written);
      written += end - start;
    }
  };
  for (const { start, end } of pieces) {
    copy(at, start);
    out[written++] = ZERO;
    at = end;
  }
  copy(at, bytes.length);
  return decodeUtf8(out);
}

/**
 * The value of `bytes`, a JSON object as `scan` (with members) found it, with each big member's
 * value, or each element of a big array, read through `scope`: what the account sent before is
 * not decoded or parsed again. The rest of the body is parsed as usual, each piece standing in as
 * `0`, so that parse checks everything between the pieces (and `scope` each piece): the result is
 * the one `JSON.parse` of the decoded body gives, or an error. A conversation the account has not
 * kept is parsed whole, its pieces noted from that parse.
 * Undefined when the body is not read so (a repeated or odd key, no members found): parse it whole.
 */
export function parseReusingPieces(bytes: Uint8Array, scan: JsonScan, scope: ParseScope): unknown {
  const pieces = listPieces(bytes, scan);
  if (pieces === undefined || pieces.length === 0) return undefined;
  // A conversation the account has not kept (its first or second sight here): one parse of the
  // whole costs less than one a piece, and the pieces are noted, or kept, from it.
  const { note } = scope;
  if (note !== undefined && scope.keepsFirst?.(bytes, pieces) === false) return parseWholeNoting(bytes, pieces, note);
  const skeleton = skeletonOf(bytes, pieces);
  if (skeleton === undefined) return undefined;
  const values: unknown[] = [];
  for (const piece of pieces) values.push(scope.read(bytes, piece.start, piece.end, slotOf(piece)));
  const body: unknown = JSON.parse(skeleton);
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const target = body as Record<string, unknown>;
  for (let p = 0; p < pieces.length; p++) {
    const { key, index, count } = pieces[p]!;
    if (index < 0) {
      if (target[key] !== 0) return undefined;
      target[key] = values[p];
      continue;
    }
    const list = target[key];
    if (!Array.isArray(list) || list.length !== count || list[index] !== 0) return undefined;
    list[index] = values[p];
  }
  return body;
}

/**
 * `bytes` parsed whole, its pieces handed to `note` (the scope's) with their values taken from the
 * parsed body. Every piece is matched with the body before any is noted (a value noted beside bytes
 * that are not its own would be reused for those bytes); a body they do not match is only parsed.
 */
function parseWholeNoting(bytes: Uint8Array, pieces: readonly Piece[], note: NonNullable<ParseScope["note"]>): unknown {
  const value: unknown = JSON.parse(decodeUtf8(bytes));
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const body = value as Record<string, unknown>;
  for (const { key, index, count } of pieces) {
    if (!Object.hasOwn(body, key)) return value;
    const member = body[key];
    if (index >= 0 && (!Array.isArray(member) || member.length !== count)) return value;
  }
  for (const piece of pieces) {
    const member = body[piece.key];
    note(bytes, piece.start, piece.end, slotOf(piece), piece.index < 0 ? member : (member as unknown[])[piece.index]);
  }
  return value;
}
