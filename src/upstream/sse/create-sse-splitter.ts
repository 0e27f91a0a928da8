import { parseSseEvent, type SseEvent } from "./read-first-event.ts";

export interface SseSplitter {
  /** Feeds bytes; returns the events completed by them (those split across chunks wait for the rest). */
  push(bytes: Uint8Array): SseEvent[];
  /** Whatever is left when the stream ends: a final event without its blank line, if any. */
  end(): SseEvent[];
}

/**
 * Splits an SSE byte stream into events for the translating path. Multi-byte characters split
 * across chunks are kept whole by the streaming decoder; `\r\n` line ends are normalised.
 */
export function createSseSplitter(): SseSplitter {
  const decoder = new TextDecoder();
  let pending = "";

  const take = (): SseEvent[] => {
    const events: SseEvent[] = [];
    let from = 0;
    for (;;) {
      const end = pending.indexOf("\n\n", from);
      if (end < 0) break;
      const block = pending.slice(from, end);
      from = end + 2;
      const event = parseSseEvent(block);
      if (event.data !== "" || event.event !== undefined) events.push(event);
    }
    pending = from === 0 ? pending : pending.slice(from);
    return events;
  };

  return {
    push(bytes) {
      const text = decoder.decode(bytes, { stream: true });
      pending += text.includes("\r") ? text.replaceAll("\r\n", "\n") : text;
      return take();
    },
    end() {
      pending += decoder.decode();
      const rest = pending.trim();
      pending = "";
      if (rest === "") return [];
      const event = parseSseEvent(rest);
      return event.data !== "" ? [event] : [];
    },
  };
}
