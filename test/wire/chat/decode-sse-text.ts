import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { parseSseEvent } from "../../../src/upstream/sse/read-first-event.ts";
import type { StreamDecoder } from "../../../src/wire/upstream-adapter.ts";

/** Splits SSE text into event blocks the way the pipeline's reader does (blank-line separated). */
export function sseBlocks(text: string): string[] {
  return text.split(/\r?\n\r?\n/).filter((block) => block.trim() !== "");
}

/** Runs a whole SSE body through a decoder, `end()` included, and returns every canonical event. */
export function decodeSseText<S>(decoder: StreamDecoder<S>, text: string): StreamEvent[] {
  let state = decoder.initial();
  const events: StreamEvent[] = [];
  for (const block of sseBlocks(text)) {
    const [next, out] = decoder.step(state, parseSseEvent(block));
    state = next;
    events.push(...out);
  }
  events.push(...decoder.end(state));
  return events;
}
