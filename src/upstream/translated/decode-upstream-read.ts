import type { StreamEvent } from "../../canonical/stream-event.ts";
import type { SseEvent } from "../../wire/sse-event.ts";
import type { UpstreamAdapter } from "../../wire/upstream-adapter.ts";
import type { SseSplitter } from "../sse/create-sse-splitter.ts";

/** A translated stream's reading side: its splitter and its decoder's state. */
export interface UpstreamReading {
  readonly splitter: SseSplitter;
  decoder: unknown;
}

const LF = 0x0a;

/** The index just past the first blank line (`\n\n`) at or after `at`, or the end of `bytes`. */
function afterNextEvent(bytes: Uint8Array, at: number): number {
  for (let i = bytes.indexOf(LF, at); i >= 0 && i + 1 < bytes.length; i = bytes.indexOf(LF, i + 1)) {
    if (bytes[i + 1] === LF) return i + 2;
  }
  return bytes.length;
}

/**
 * Splits `bytes` and decodes their events, appending the canonical events to `out`; the check
 * still to be made (undefined once an event other than a start has come).
 */
function splitInto(reading: UpstreamReading, bytes: Uint8Array, adapter: UpstreamAdapter, out: StreamEvent[], check: ((event: SseEvent) => void) | undefined): ((event: SseEvent) => void) | undefined {
  for (const upstreamEvent of reading.splitter.push(bytes)) {
    check?.(upstreamEvent);
    reading.decoder = adapter.stream.stepInto(reading.decoder, upstreamEvent, out);
    // Only what comes before the first content is checked: the events after it are the stream's.
    // While checking, every event so far is a start: the list is short.
    if (check && !out.every((event) => event.type === "start")) check = undefined;
  }
  return check;
}

/**
 * How much of a read goes to the splitter at a time (then to the end of the event there) while the
 * byte reader cannot read it: the checked start, the events before a shape is learned, events it
 * does not fit. A burst's first read can hold most of the answer; given whole, all of it would
 * be split as text before the shape learned from its first events could read the rest. A short
 * answer (20 Chat events, 4.6 KB) fits in one slice, so it is split as it was before.
 */
const SPLIT_SLICE_BYTES = 8192;

/**
 * Appends the canonical events of one upstream read (`null`: the stream's end) to `out`, in the
 * order their SSE events came, and returns `out`. Where the decoder reads events from bytes
 * (`stepBytes`), it reads each time the splitter holds nothing of an event; the event it stops at
 * goes to the splitter alone, and when it read nothing, the next few KB do. A decoder without it
 * has each read split whole. `check` sees each event until the first content; the byte reader
 * waits until then.
 */
export function decodeUpstreamRead(reading: UpstreamReading, bytes: Uint8Array | null, adapter: UpstreamAdapter, maxEventBytes: number, out: StreamEvent[], check?: (event: SseEvent) => void): StreamEvent[] {
  const { splitter } = reading;
  if (bytes === null) {
    for (const upstreamEvent of splitter.end()) reading.decoder = adapter.stream.stepInto(reading.decoder, upstreamEvent, out);
    if (!splitter.overflowed) for (const event of adapter.stream.end(reading.decoder)) out.push(event);
    return out;
  }
  const { stream } = adapter;
  if (stream.stepBytes === undefined) {
    splitInto(reading, bytes, adapter, out, check);
    return out;
  }
  const n = bytes.length;
  let at = 0;
  while (at < n && !splitter.overflowed) {
    let cut: number;
    if (!splitter.idle) {
      // The end of the event the last read began: the splitter is done with it there.
      cut = afterNextEvent(bytes, at);
    } else if (check !== undefined) {
      cut = afterNextEvent(bytes, at + SPLIT_SLICE_BYTES);
    } else {
      const next = stream.stepBytes(reading.decoder, bytes, at, maxEventBytes, out);
      if (next >= n) break;
      cut = afterNextEvent(bytes, next > at ? next : at + SPLIT_SLICE_BYTES);
      at = next;
    }
    check = splitInto(reading, at === 0 && cut === n ? bytes : bytes.subarray(at, cut), adapter, out, check);
    at = cut;
  }
  return out;
}
