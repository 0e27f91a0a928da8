import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { parseSseEvent } from "../../../src/upstream/sse/read-first-event.ts";
import type { SseEvent } from "../../../src/wire/sse-event.ts";
import type { StreamDecoder } from "../../../src/wire/upstream-adapter.ts";

/** Splits an SSE body into parsed events (blank blocks skipped). */
export function splitSse(text: string): SseEvent[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map(parseSseEvent);
}

/** Runs a whole SSE body through a stream decoder, `end()` included. */
export function decodeAll<S>(decoder: StreamDecoder<S>, text: string): StreamEvent[] {
  let state = decoder.initial();
  const out: StreamEvent[] = [];
  for (const event of splitSse(text)) {
    const [next, events] = decoder.step(state, event);
    state = next;
    out.push(...events);
  }
  out.push(...decoder.end(state));
  return out;
}

/** The `type` of each event's JSON data. */
export const dataTypes = (text: string): string[] => splitSse(text).map((e) => (JSON.parse(e.data) as { type: string }).type);
