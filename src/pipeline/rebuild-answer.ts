import type { CanonicalResponse } from "../canonical/response.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { collectStreamResponse, newStreamCollector } from "../cache/collect-stream-response.ts";
import { UPSTREAM_ADAPTERS } from "../upstream/adapters.ts";
import { createSseSplitter } from "../upstream/sse/create-sse-splitter.ts";

/**
 * The whole answer of a passed-through stream, rebuilt from the chunks sent once the stream has
 * ended (never per chunk on the fast path), for the response cache. Null when it did not finish.
 */
export function rebuildStreamAnswer(api: WireFormat, chunks: readonly Uint8Array[]): CanonicalResponse | null {
  const adapter = UPSTREAM_ADAPTERS[api];
  const splitter = createSseSplitter();
  const collector = newStreamCollector();
  let state = adapter.stream.initial();
  const feed = (events: ReturnType<typeof splitter.end>): void => {
    for (const sse of events) {
      const [next, produced] = adapter.stream.step(state, sse);
      state = next;
      for (const event of produced) collectStreamResponse(collector, event);
    }
  };
  for (const chunk of chunks) feed(splitter.push(chunk));
  feed(splitter.end());
  for (const event of adapter.stream.end(state)) collectStreamResponse(collector, event);
  return collector.response;
}

/** A passed-through JSON answer read into the canonical model; null when it is not a valid answer. */
export function decodeAnswerBytes(api: WireFormat, bytes: Uint8Array): CanonicalResponse | null {
  try {
    return UPSTREAM_ADAPTERS[api].decodeResponse(JSON.parse(new TextDecoder().decode(bytes))).value;
  } catch {
    return null;
  }
}
