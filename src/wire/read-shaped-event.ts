import type { JsonShape, ShapeMemory } from "./json-shape.ts";
import { MAX_COUNT_DIGITS, noteShapeFill } from "./json-shape.ts";
import { holdsBytesAt, type LiteralBox, NATIVE_COMPARE_BYTES, readCountBytes, readJsonStringBytes } from "./read-json-bytes.ts";

const UTF8 = new TextEncoder();

/**
 * The shape's pieces as an SSE event's bytes: the event's name line (when the event it was learned
 * from had one) and `data: ` before the first, the blank line after the last. Then, where the two
 * together are long enough to be compared natively (so a loop over the last is saved), the last
 * and the first, as one event's end and the next one's start lie in a burst.
 */
function frame(shape: JsonShape, name: string | undefined): readonly Uint8Array[] {
  const last = shape.pieces.length - 1;
  const head = name === undefined ? "data: " : `event: ${name}\ndata: `;
  const framed = shape.pieces.map((piece, i) => UTF8.encode(`${i === 0 ? head : ""}${piece}${i === last ? "\n\n" : ""}`));
  const joint = UTF8.encode(`${shape.pieces[last]}\n\n${head}${shape.pieces[0]}`);
  return joint.length >= NATIVE_COMPARE_BYTES ? [...framed, joint] : framed;
}

/** One box for each hole's value, not one a call. */
const LITERAL: LiteralBox = { value: "" };
const COUNT = { value: 0 };

/**
 * Where the last event read ended with the next event's first piece already matched (by the same
 * framing, in the same bytes): that piece is not compared again. The next call, of any stream,
 * lets the bytes go: at most one read is held here until then. In a 2,000-event Chat burst, whose
 * chunks open with some 200 bytes, decoding took 0.86 of the time (in process, 40 alternating
 * rounds): the loop over each chunk's last 60 bytes was saved. A Responses delta's pieces are too
 * short to gain (unchanged).
 */
const AHEAD: { framed: readonly Uint8Array[] | null; bytes: Uint8Array | null; at: number } = { framed: null, bytes: null, at: -1 };

/**
 * The SSE event at `bytes[at]` read through the stream's learned shape without its text: when it
 * is exactly the name line of the event the shape was learned from (if that had one), `data: `,
 * the shape's pieces with a valid string literal (or a count's digits) in each hole, and a blank
 * line, each hole's string is written into the shape's chunk (as readShaped does) and the index
 * just past the event is returned; -1 when the stream has no shape, or the event does not fit it,
 * runs past `bytes` or is longer than `maxEventBytes` (then the SSE splitter reads it).
 *
 * Why bytes: the frequent events of a long answer are the shape's bytes around a few words, and
 * read as text, every byte of them became a string first (the read's text, then each event's
 * data) only to be compared with the shape and dropped. Compared where they lie, only the words
 * become strings. The pieces' bytes are the UTF-8 of the text they were learned from, so a match
 * of bytes is a match of that text; a hole's bytes are decoded as the splitter decodes an event
 * (a byte sequence that is not UTF-8 becomes U+FFFD either way).
 */
export function readShapedEvent(memory: ShapeMemory, bytes: Uint8Array, at: number, maxEventBytes: number): number {
  const shape = memory.shape;
  if (shape === null) return -1;
  const framed = (memory.framed ??= frame(shape, memory.name));
  const holes = shape.holes;
  const ahead = AHEAD.at === at && AHEAD.bytes === bytes && AHEAD.framed === framed;
  AHEAD.bytes = null;
  let i = at;
  for (let h = 0; h < holes.length; h++) {
    const piece = framed[h]!;
    if (!(h === 0 && ahead) && !holdsBytesAt(bytes, i, piece)) return -1;
    i += piece.length;
    const hole = holes[h]!;
    const end = hole.count ? readCountBytes(bytes, i, MAX_COUNT_DIGITS, COUNT) : readJsonStringBytes(bytes, i, LITERAL);
    if (end < 0) return -1;
    hole.parent[hole.key] = hole.count ? COUNT.value : LITERAL.value;
    i = end;
  }
  const last = framed[holes.length]!;
  // Where another event of the shape follows, one comparison reads this one's end and that one's start.
  const joint = framed[holes.length + 1];
  const joined = joint !== undefined && holdsBytesAt(bytes, i, joint);
  if (!joined && !holdsBytesAt(bytes, i, last)) return -1;
  i += last.length;
  // The splitter's limit is on the event without its blank line.
  if (i - 2 - at > maxEventBytes) return -1;
  if (joined) {
    AHEAD.framed = framed;
    AHEAD.bytes = bytes;
    AHEAD.at = i;
  }
  noteShapeFill(memory);
  return i;
}
