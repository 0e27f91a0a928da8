import { parseSseEvent, readSseEvent } from "./read-first-event.ts";
import type { SseEvent } from "../../wire/sse-event.ts";
import { isAscii } from "node:buffer";
import { fromLatin1 } from "../from-latin1.ts";
import { ownCopy } from "../../canonical/kept-text.ts";

export interface SseSplitter {
  /** Feeds bytes; returns the events completed by them (those split across chunks wait for the rest). */
  push(bytes: Uint8Array): SseEvent[];
  /** Whatever is left when the stream ends: a final event without its blank line, if any. */
  end(): SseEvent[];
  /** True once an event has grown past the limit; nothing more is held or returned. */
  readonly overflowed: boolean;
  /**
   * True when the next byte pushed begins an event: the stream's opening is read, nothing of an
   * event is held, and no byte of a character the last read cut short.
   */
  readonly idle: boolean;
}

/**
 * Splits an SSE byte stream into events for the translating path. A read past ASCII is split as
 * Latin-1 (one character a byte, a copy), and each of its events' data and name is decoded from
 * UTF-8 on its own, only when it holds such a byte (see fromLatin1). Decoded a read at a time, one
 * character past Latin-1 in a read (a dash, a quote mark: a model's prose has them) made the whole
 * read, and every event sliced from it, a string of two bytes a character, which every later step
 * reads and copies more slowly. 2,000 Chat events of recorded prose, three of them with such a
 * character, through this pipe's split, decode, collector, tally and Messages encode in process
 * (each way in turn, ten rounds): 0.70 of the CPU at 64 KB reads, 0.80 with the answer in one read;
 * without those three, 1.02 and 1.01. A stream dense with such characters is decoded a read at a
 * time (see DENSE). A multi-byte character split across chunks is whole once its event is, or is
 * kept whole by the streaming decoder; `\r\n` line ends are normalised, also one that two chunks
 * cut between its `\r` and its `\n`. An event still waiting for its end is only appended to (a
 * string rope, no search over it) until a chunk brings a blank line, and never grows past
 * `maxEventBytes`.
 */
/** One options object for every chunk's decode, not one a chunk. */
const STREAMING = { stream: true } as const;

/** The UTF-8 byte order mark: a stream may begin with it, and it is not part of the first event. */
const BOM = [0xef, 0xbb, 0xbf] as const;
const EMPTY = new Uint8Array(0);

/** Whether `bytes` begin with as much of the byte order mark as they hold (or with all of it). */
const opensLikeBom = (bytes: Uint8Array): boolean => BOM.every((byte, i) => i >= bytes.length || bytes[i] === byte);

/**
 * A read more than 1 in DENSE of whose bytes are past ASCII (Chinese text, say: a character or more
 * an event) turns its stream to decoding a read at a time. Decoded each on its own, such events
 * cost 0.96-1.24 µs an event against 0.68-0.75 (2,000 events of Chinese text, 64 KB reads); so
 * turned, 0.98 of the CPU before this splitter, at 64 KB reads and with the answer in one read
 * (copied and counted whole before it was decoded, that read cost 1.10). English prose with a dash
 * here and there stays far below; a read of one event that holds one is decoded alike either way.
 */
const DENSE = 256;
/** How much of a big read is judged before the whole of it is copied. */
const DENSE_SAMPLE = 16 * 1024;

/** Latin-1 text more than 1 in DENSE of whose characters are bytes past ASCII (each counts twice in its UTF-8 length). */
const isDense = (text: string): boolean => (Buffer.byteLength(text, "utf8") - text.length) * DENSE > text.length;

/** The bytes as Latin-1 (Buffer's method reads a Uint8Array as well, without a Buffer around it). */
const latin1 = (bytes: Uint8Array): string => Buffer.prototype.latin1Slice.call(bytes, 0, bytes.length);

/**
 * An ASCII read's text, by the decoder: the same characters as Latin-1, and the 2,000-event burst
 * through a gateway cost less so (`bun run bench --sections long-stream --baseline <checkout
 * before>`: with every read split as Latin-1, 1.09 the CPU in five rounds and 1.14 in nine; so,
 * 1.02 in nine).
 */
const ASCII_TEXT = new TextDecoder();

/** An event with its data and name decoded from the Latin-1 they were read as; the same event when both are ASCII. */
function decoded(event: SseEvent): SseEvent {
  const data = fromLatin1(event.data);
  const name = event.event === undefined ? undefined : fromLatin1(event.event);
  return data === event.data && name === event.event ? event : { event: name, data };
}

export function createSseSplitter(maxEventBytes = Number.POSITIVE_INFINITY): SseSplitter {
  let pending = "";
  /** Before the first bytes past a possible byte order mark: what came of the mark so far. */
  let opening: Uint8Array | undefined = EMPTY;
  let overflowed = false;
  let heldCr = false;
  /** Set once the stream is decoded a read at a time; until then, it is read as Latin-1. */
  let decoder: TextDecoder | undefined;
  /** Whether that decoder may hold the first bytes of a character the last read cut (it ended past ASCII). */
  let decoderHolds = false;
  /** Whether the text held and the read being split are all ASCII (so no event needs decoding). */
  let ascii = true;
  /**
   * The last event's name: the next events mostly have it, and are given it rather than two strings
   * cut anew (2,000 Messages text deltas, each with its `event:` line, to a Chat client in process:
   * 0.96-0.97 of the CPU, two runs of ten alternating rounds).
   */
  let lastName: string | undefined;

  /**
   * A chunk's text, as long as the stream is read as Latin-1: whether it (and what is held) is all
   * ASCII is noted, and a chunk dense with bytes past ASCII turns the stream to decoding a read at a
   * time, what is held first (the decoder keeps a character its end cuts).
   */
  const textOf = (bytes: Uint8Array): string => {
    if (isAscii(bytes)) {
      if (pending === "") ascii = true;
      return ASCII_TEXT.decode(bytes);
    }
    ascii = false;
    // A big read is judged by its start first: a dense one is then decoded without a copy and a count of it all.
    const text = bytes.length > DENSE_SAMPLE && isDense(latin1(bytes.subarray(0, DENSE_SAMPLE))) ? undefined : latin1(bytes);
    if (text !== undefined && !isDense(text)) return text;
    decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    pending = pending === "" ? "" : decoder.decode(Buffer.from(pending, "latin1"), STREAMING);
    return decoder.decode(bytes, STREAMING);
  };

  /** Events split from Latin-1 text, each decoded from UTF-8 when it holds a byte past ASCII. */
  const asUtf8 = (events: SseEvent[]): SseEvent[] => {
    if (decoder !== undefined || ascii) return events;
    for (let i = 0; i < events.length; i++) events[i] = decoded(events[i]!);
    return events;
  };

  const take = (): SseEvent[] => {
    const events: SseEvent[] = [];
    let from = 0;
    for (;;) {
      // Most events are one line: its end, followed by a blank line, ends the event (one search, not two).
      const lineEnd = pending.indexOf("\n", from);
      if (lineEnd < 0) break;
      const oneLine = pending.charCodeAt(lineEnd + 1) === 10;
      const end = oneLine ? lineEnd : pending.indexOf("\n\n", lineEnd);
      if (end < 0) break;
      if (end - from > maxEventBytes) {
        overflowed = true;
        pending = "";
        return events;
      }
      // A lone `data: …` line (no `\r` to drop) is its data, sliced out at once.
      const event =
        oneLine && end > from + 6 && pending.startsWith("data: ", from) && pending.charCodeAt(end - 1) !== 13
          ? { event: undefined, data: pending.slice(from + 6, end) }
          : readSseEvent(pending, from, end, lastName);
      // A name kept for the next events is a copy: cut from the read, it would keep the read alive.
      if (event.event !== undefined && event.event !== lastName) lastName = ownCopy(event.event);
      from = end + 2;
      if (event.data !== "" || event.event !== undefined) events.push(event);
    }
    pending = from === 0 ? pending : from >= pending.length ? "" : pending.slice(from);
    return events;
  };

  /** Gives up a stream whose unfinished event has grown past the limit. */
  const check = (events: SseEvent[]): SseEvent[] => {
    if (pending.length > maxEventBytes) {
      overflowed = true;
      pending = "";
    }
    return events;
  };

  /** The events `bytes` complete, as split (read as Latin-1 until the stream is decoded a read at a time). */
  const split = (bytes: Uint8Array): SseEvent[] => {
    if (overflowed) return [];
    if (opening !== undefined) {
      const start = opening.length === 0 ? bytes : Buffer.concat([opening, bytes]);
      const bom = opensLikeBom(start);
      // Too short yet to tell a byte order mark from an event: it waits for the next chunk.
      if (bom && start.length < BOM.length) {
        opening = start;
        return [];
      }
      opening = undefined;
      bytes = bom ? start.subarray(BOM.length) : start;
    }
    let text = decoder === undefined ? textOf(bytes) : decoder.decode(bytes, STREAMING);
    if (decoder !== undefined) decoderHolds = bytes.length > 0 && bytes[bytes.length - 1]! >= 0x80;
    // The usual chunk, one whole `data: …` event and nothing held: its data, without the search below.
    if (pending === "" && !heldCr && text.length > 8 && text.startsWith("data: ") && text.indexOf("\n") === text.length - 2 && text.charCodeAt(text.length - 1) === 10 && text.charCodeAt(text.length - 3) !== 13) {
      if (text.length - 2 > maxEventBytes) {
        overflowed = true;
        return [];
      }
      return [{ event: undefined, data: text.slice(6, -2) }];
    }
    if (heldCr) {
      text = `\r${text}`;
      heldCr = false;
    }
    if (text.includes("\r")) {
      // A `\r\n` the chunks cut in two is joined first: a `\r` at the end waits for the next chunk.
      heldCr = text.endsWith("\r");
      text = (heldCr ? text.slice(0, -1) : text).replaceAll("\r\n", "\n");
    }
    const seam = text.charCodeAt(0) === 10 && pending.endsWith("\n");
    const ends = seam || text.includes("\n\n");
    if (!ends || pending === "") {
      // Not `+=` on an empty string: that makes a rope the search must flatten, a copy of every chunk.
      pending = pending === "" ? text : pending + text;
      return ends ? check(take()) : check([]);
    }
    // The event the last chunk began ends early in this one: it is joined alone, and the rest of the
    // chunk is read where it lies. Joined whole, the chunk would be copied by the first search.
    const cut = seam ? 1 : text.indexOf("\n\n") + 2;
    pending += text.slice(0, cut);
    const head = take();
    if (overflowed) return head;
    const rest = text.slice(cut);
    pending = pending === "" ? rest : pending + rest;
    const events = check(take());
    return head.length === 0 ? events : events.length === 0 ? head : head.concat(events);
  };

  return {
    push: (bytes) => asUtf8(split(bytes)),
    end() {
      if (overflowed) return [];
      // A stream of nothing but a byte order mark's first bytes: those are its text.
      pending += (heldCr ? "\r" : "") + (opening === undefined ? "" : latin1(opening)) + (decoder?.decode() ?? "");
      opening = undefined;
      // A final event without its blank line counts only if it can be whole (it closes a JSON
      // object or is `[DONE]`); one the stream broke off is dropped without a copy or a parse.
      let last = pending.length - 1;
      while (last >= 0 && pending.charCodeAt(last) <= 0x20) last--;
      const closing = last >= 0 ? pending.charCodeAt(last) : 0;
      if (closing !== 0x7d && closing !== 0x5d) {
        pending = "";
        return [];
      }
      const rest = pending.trim();
      pending = "";
      if (rest === "") return [];
      const event = decoder === undefined ? decoded(parseSseEvent(rest)) : parseSseEvent(rest);
      return event.data !== "" ? [event] : [];
    },
    get overflowed() {
      return overflowed;
    },
    get idle() {
      return !overflowed && opening === undefined && pending === "" && !heldCr && !decoderHolds;
    },
  };
}
