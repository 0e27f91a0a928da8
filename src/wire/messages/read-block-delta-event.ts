import { holdsBytesAt, type LiteralBox, readJsonStringBytes } from "../read-json-bytes.ts";
import { BLOCK_DELTA_HEAD, BLOCK_DELTA_KINDS, type BlockDelta, MAX_INDEX_DIGITS } from "./read-block-delta.ts";

/** A BlockDelta that readBlockDeltaEvent writes into: one for every call, read before the next. */
export type BlockDeltaBox = { -readonly [K in keyof BlockDelta]: BlockDelta[K] };

const UTF8 = new TextEncoder();
const bytesOf = (text: string): Uint8Array => UTF8.encode(text);

/** The event as the API frames it, up to the index: its name line, then its data's head. */
const HEAD = bytesOf(`event: content_block_delta\ndata: ${BLOCK_DELTA_HEAD}`);
const KINDS = BLOCK_DELTA_KINDS.map(([prefix, kind]) => [bytesOf(prefix), kind] as const);
/** What follows the string: the delta's and the event's braces, the blank line. */
const TAIL = bytesOf("}}\n\n");

const ZERO = 0x30;
const NINE = 0x39;

const LITERAL: LiteralBox = { value: "" };

/**
 * The `content_block_delta` event at `bytes[at]`, when it is framed and written exactly as the API
 * sends it (`event: content_block_delta`, its data on one line as readBlockDelta reads it, a blank
 * line): its index, kind and text in `box`, and the index just past the event; -1 for any other
 * event or writing, an event that runs past `bytes`, or one longer than `maxEventBytes` (the SSE
 * splitter reads those). The same event readBlockDelta reads once it is split, without its bytes
 * becoming a string first: only its text does.
 */
export function readBlockDeltaEvent(bytes: Uint8Array, at: number, maxEventBytes: number, box: BlockDeltaBox): number {
  if (!holdsBytesAt(bytes, at, HEAD)) return -1;
  // The index read here rather than by readCountBytes: called, it made decoding 2,000 deltas take
  // 1.07 of the time (in process, 40 alternating rounds, twice), as this function is the hot one.
  let i = at + HEAD.length;
  const first = i;
  let index = 0;
  for (; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c < ZERO || c > NINE) break;
    index = index * 10 + (c - ZERO);
  }
  const digits = i - first;
  if (digits === 0 || digits > MAX_INDEX_DIGITS || (digits > 1 && bytes[first] === ZERO)) return -1;
  for (const [prefix, kind] of KINDS) {
    if (!holdsBytesAt(bytes, i, prefix)) continue;
    const end = readJsonStringBytes(bytes, i + prefix.length, LITERAL);
    if (end < 0 || !holdsBytesAt(bytes, end, TAIL)) return -1;
    // The splitter's limit is on the event without its blank line.
    if (end + TAIL.length - 2 - at > maxEventBytes) return -1;
    box.index = index;
    box.kind = kind;
    box.text = LITERAL.value;
    return end + TAIL.length;
  }
  return -1;
}
