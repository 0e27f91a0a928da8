import { parseSseEvent, readSseEvent } from "./read-first-event.ts";
import type { SseEvent } from "../../wire/sse-event.ts";

export interface SseSplitter {
  /** Feeds bytes; returns the events completed by them (those split across chunks wait for the rest). */
  push(bytes: Uint8Array): SseEvent[];
  /** Whatever is left when the stream ends: a final event without its blank line, if any. */
  end(): SseEvent[];
  /** True once an event has grown past the limit; nothing more is held or returned. */
  readonly overflowed: boolean;
}

/**
 * Splits an SSE byte stream into events for the translating path. Multi-byte characters split
 * across chunks are kept whole by the streaming decoder; `\r\n` line ends are normalised, also one
 * that two chunks cut between its `\r` and its `\n`. An event still waiting for its end is only
 * appended to (a string rope, no search over it) until a chunk brings a blank line, and never grows
 * past `maxEventBytes`.
 */
/** One options object for every chunk's decode, not one a chunk. */
const STREAMING = { stream: true } as const;

export function createSseSplitter(maxEventBytes = Number.POSITIVE_INFINITY): SseSplitter {
  const decoder = new TextDecoder();
  let pending = "";
  let overflowed = false;
  let heldCr = false;

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
          : readSseEvent(pending, from, end);
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

  return {
    push(bytes) {
      if (overflowed) return [];
      let text = decoder.decode(bytes, STREAMING);
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
    },
    end() {
      if (overflowed) return [];
      pending += (heldCr ? "\r" : "") + decoder.decode();
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
      const event = parseSseEvent(rest);
      return event.data !== "" ? [event] : [];
    },
    get overflowed() {
      return overflowed;
    },
  };
}
