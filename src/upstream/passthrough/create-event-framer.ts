import { asBuffer } from "../as-buffer.ts";

/**
 * Cuts a passing SSE byte stream at event boundaries (a blank line, `\n\n` or `\r\n\r\n`), so only
 * whole events ever go on: an event the upstream broke off is never half-sent. What waits for its
 * end is held as the chunks it arrived in (no copy per chunk, whatever the event's length), and
 * never more than `maxEventBytes` of it.
 */
export interface EventFramer {
  /** The whole events `chunk` completes, with the held start of the first; empty while none is complete. */
  push(chunk: Uint8Array): Buffer;
  /** At the end of the stream: the bytes of an event that never got its blank line (empty if none). */
  rest(): Buffer;
  /**
   * Whether what is held could be a whole event without its blank line: its last non-blank byte
   * closes a JSON object (or `[DONE]`). When not, it was cut, and is never copied or parsed.
   */
  restMayBeWhole(): boolean;
  /** True once the event being held has grown past the limit (and nothing more is held). */
  readonly overflowed: boolean;
}

const LF = 10;
const CR = 13;
const LFLF = Buffer.from("\n\n");
const LFCRLF = Buffer.from("\n\r\n");
const EMPTY = Buffer.alloc(0);

/** Index just past the last blank line in `bytes`, or -1. */
function lastEventEnd(bytes: Buffer): number {
  // Upstreams flush whole events: the common case is found at the very end, without a search.
  const n = bytes.length;
  if (n >= 2 && bytes[n - 1] === LF && (bytes[n - 2] === LF || (n >= 3 && bytes[n - 2] === CR && bytes[n - 3] === LF))) return n;
  const plain = bytes.lastIndexOf(LFLF);
  const crlf = bytes.lastIndexOf(LFCRLF);
  return Math.max(plain < 0 ? -1 : plain + 2, crlf < 0 ? -1 : crlf + 3);
}

/** A blank line split between the held bytes (ending with `before`) and `bytes`: the index in `bytes` just past it, or -1. */
function seamEnd(before: Buffer, bytes: Buffer): number {
  const a = before[before.length - 1];
  const b = before.length >= 2 ? before[before.length - 2] : undefined;
  if (a === LF && bytes[0] === LF) return 1;
  if (a === LF && bytes[0] === CR && bytes[1] === LF) return 2;
  if (a === CR && b === LF && bytes[0] === LF) return 1;
  return -1;
}

export function createEventFramer(maxEventBytes: number): EventFramer {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let overflowed = false;

  return {
    push(chunk) {
      if (overflowed) return EMPTY;
      const bytes = asBuffer(chunk);
      let cut = lastEventEnd(bytes);
      if (cut < 0 && heldBytes > 0) cut = seamEnd(held[held.length - 1]!, bytes);
      if (cut < 0) {
        held.push(bytes);
        heldBytes += bytes.length;
        if (heldBytes > maxEventBytes) {
          overflowed = true;
          held = [];
          heldBytes = 0;
        }
        return EMPTY;
      }
      // A chunk of whole events (the usual one) goes on as it is: no view of it is made.
      const upToCut = cut === bytes.length ? bytes : bytes.subarray(0, cut);
      const whole = heldBytes === 0 ? upToCut : Buffer.concat([...held, upToCut]);
      held = cut === bytes.length ? [] : [bytes.subarray(cut)];
      heldBytes = bytes.length - cut;
      if (heldBytes > maxEventBytes) {
        overflowed = true;
        held = [];
        heldBytes = 0;
      }
      return whole;
    },
    rest() {
      const rest = held.length === 0 ? EMPTY : held.length === 1 ? held[0]! : Buffer.concat(held);
      held = [];
      heldBytes = 0;
      return rest;
    },
    restMayBeWhole() {
      for (let p = held.length - 1; p >= 0; p--) {
        const part = held[p]!;
        for (let i = part.length - 1; i >= 0; i--) {
          const c = part[i]!;
          if (c === 0x20 || c === LF || c === CR || c === 0x09) continue;
          return c === 0x7d || c === 0x5d;
        }
      }
      return false;
    },
    get overflowed() {
      return overflowed;
    },
  };
}
