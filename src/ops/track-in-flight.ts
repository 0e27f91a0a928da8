import type { RequestObserver } from "../canonical/request-record.ts";

export interface InFlightTracker {
  /** The HTTP layer calls this with every response a pipeline route returns. */
  responded(response: Response): void;
  /** A stream's request record marks the end of that stream (its last byte sent, or the client gone). */
  readonly observe: RequestObserver;
  /** Where the count of requests being served comes from (the server's own count). */
  countRequestsWith(read: () => number): void;
  counts(): { requests: number; streams: number };
}

/**
 * In-flight requests and streams for the gauges. Requests are the server's own count, which
 * includes streams until their last byte. Streams are counted from their first byte to their
 * record: the pipeline's stream bodies are Bun direct streams, which end by resolving rather than
 * closing, so wrapping them to see the end would not work (and would cost a copy per chunk).
 */
export function createInFlightTracker(): InFlightTracker {
  let streams = 0;
  let readRequests = (): number => 0;
  return {
    responded(response) {
      if (response.status === 200 && (response.headers.get("content-type") ?? "").startsWith("text/event-stream")) streams += 1;
    },
    observe(record) {
      if (record.stream && record.status === 200 && streams > 0) streams -= 1;
    },
    countRequestsWith(read) {
      readRequests = read;
    },
    counts: () => ({ requests: readRequests(), streams }),
  };
}
