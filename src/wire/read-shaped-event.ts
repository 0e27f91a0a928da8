import type { JsonShape, ShapeMemory } from "./json-shape.ts";
import { noteShapeFill } from "./json-shape.ts";
import { jsonEscapeLength } from "./scan-json-string.ts";

const compareBytes = Buffer.prototype.compare;
const latin1Slice = Buffer.prototype.latin1Slice;
const utf8Slice = Buffer.prototype.utf8Slice;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The shape's pieces as an SSE event's bytes: `data: ` before the first, the blank line after the last. */
function frame(shape: JsonShape): readonly Uint8Array[] {
  const last = shape.pieces.length - 1;
  return shape.pieces.map((piece, i) => new Uint8Array(Buffer.from(`${i === 0 ? "data: " : ""}${piece}${i === last ? "\n\n" : ""}`, "utf8")));
}

/**
 * Below this many bytes a piece is compared in a loop here: a native comparison's call costs more
 * than the loop (65 ns to compare 190 bytes natively, 91 in the loop; ~0.5 ns a byte in the loop).
 */
const NATIVE_COMPARE_BYTES = 128;

/** Whether `bytes` hold `piece` at `at` (no view, no copy). */
function holdsAt(bytes: Uint8Array, at: number, piece: Uint8Array): boolean {
  const n = piece.length;
  if (at + n > bytes.length) return false;
  if (n >= NATIVE_COMPARE_BYTES) return compareBytes.call(bytes, piece, 0, n, at, at + n) === 0;
  for (let i = 0; i < n; i++) if (bytes[at + i] !== piece[i]) return false;
  return true;
}

/**
 * Where the JSON string literal opening at `bytes[at]` (a `"`) ends, scanJsonString's grammar over
 * UTF-8 bytes: the index just past its closing quote, or -1. `kind` gets 0 for a literal of ASCII
 * with no escape, 1 when it also holds bytes past ASCII, 2 when it holds an escape.
 */
function scanLiteral(bytes: Uint8Array, at: number, kind: { value: number }): number {
  const n = bytes.length;
  if (bytes[at] !== QUOTE) return -1;
  let found = 0;
  let i = at + 1;
  while (i < n) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      kind.value = found;
      return i + 1;
    }
    if (c < 0x20) return -1;
    if (c !== BACKSLASH) {
      if (c >= 0x80 && found === 0) found = 1;
      i++;
      continue;
    }
    found = 2;
    const length = jsonEscapeLength(bytes[i + 1] ?? 0, bytes[i + 2] ?? 0, bytes[i + 3] ?? 0, bytes[i + 4] ?? 0, bytes[i + 5] ?? 0);
    if (length === 0) return -1;
    i += length;
  }
  return -1;
}

/** One box for scanLiteral's answer, not one a call. */
const KIND = { value: 0 };

/**
 * The SSE event at `bytes[at]` read through the stream's learned shape without its text: when it
 * is exactly `data: `, the shape's pieces with a valid string literal in each hole, and a blank
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
  const framed = (memory.framed ??= frame(shape));
  const holes = shape.holes;
  let i = at;
  for (let h = 0; h < holes.length; h++) {
    const piece = framed[h]!;
    if (!holdsAt(bytes, i, piece)) return -1;
    i += piece.length;
    const end = scanLiteral(bytes, i, KIND);
    if (end < 0) return -1;
    const hole = holes[h]!;
    hole.parent[hole.key] =
      KIND.value === 0 ? latin1Slice.call(bytes, i + 1, end - 1) : KIND.value === 1 ? utf8Slice.call(bytes, i + 1, end - 1) : (JSON.parse(utf8Slice.call(bytes, i, end)) as string);
    i = end;
  }
  const last = framed[holes.length]!;
  if (!holdsAt(bytes, i, last)) return -1;
  i += last.length;
  // The splitter's limit is on the event without its blank line.
  if (i - 2 - at > maxEventBytes) return -1;
  noteShapeFill(memory);
  return i;
}
