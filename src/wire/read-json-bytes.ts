import { jsonEscapeLength } from "./scan-json-string.ts";

const compareBytes = Buffer.prototype.compare;
const latin1Slice = Buffer.prototype.latin1Slice;
const utf8Slice = Buffer.prototype.utf8Slice;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Below this many bytes a piece is compared in a loop here: a native comparison's call costs more
 * than the loop (65 ns to compare 190 bytes natively, 91 in the loop; ~0.5 ns a byte in the loop).
 */
export const NATIVE_COMPARE_BYTES = 128;

/** Whether `bytes` hold `piece` at `at` (no view, no copy). */
export function holdsBytesAt(bytes: Uint8Array, at: number, piece: Uint8Array): boolean {
  const n = piece.length;
  if (at + n > bytes.length) return false;
  if (n >= NATIVE_COMPARE_BYTES) return compareBytes.call(bytes, piece, 0, n, at, at + n) === 0;
  for (let i = 0; i < n; i++) if (bytes[at + i] !== piece[i]) return false;
  return true;
}

/** Where a literal read by readJsonStringBytes ends, and its value: one box for every call, read before the next. */
export interface LiteralBox {
  value: string;
}

/**
 * The JSON string literal opening at `bytes[at]` (a `"`), read from its UTF-8 bytes with
 * scanJsonString's grammar: the index just past its closing quote, its value in `box`; -1 when
 * there is no valid literal there (no quote, a raw control character, a bad escape, no end within
 * `bytes`). A literal of ASCII without escapes is copied as it is; one with bytes past ASCII is
 * decoded as the splitter decodes an event (a sequence that is not UTF-8 becomes U+FFFD); one with
 * an escape is parsed.
 */
export function readJsonStringBytes(bytes: Uint8Array, at: number, box: LiteralBox): number {
  const n = bytes.length;
  if (bytes[at] !== QUOTE) return -1;
  let high = false;
  let escaped = false;
  let i = at + 1;
  while (i < n) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      box.value = escaped ? (JSON.parse(utf8Slice.call(bytes, at, i + 1)) as string) : high ? utf8Slice.call(bytes, at + 1, i) : latin1Slice.call(bytes, at + 1, i);
      return i + 1;
    }
    if (c < 0x20) return -1;
    if (c !== BACKSLASH) {
      if (c >= 0x80) high = true;
      i++;
      continue;
    }
    escaped = true;
    const length = jsonEscapeLength(bytes[i + 1] ?? 0, bytes[i + 2] ?? 0, bytes[i + 3] ?? 0, bytes[i + 4] ?? 0, bytes[i + 5] ?? 0);
    if (length === 0) return -1;
    i += length;
  }
  return -1;
}

/**
 * Where the count written at `bytes[at]` ends (just past its digits), with its value in `box`; -1
 * when no count as JSON writes one is there (no digit, a leading zero, more than `maxDigits`).
 */
export function readCountBytes(bytes: Uint8Array, at: number, maxDigits: number, box: { value: number }): number {
  let value = 0;
  let i = at;
  for (; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + (c - 0x30);
  }
  const digits = i - at;
  if (digits === 0 || digits > maxDigits || (digits > 1 && bytes[at] === 0x30)) return -1;
  box.value = value;
  return i;
}
