import type { CanonicalResponse } from "../canonical/response.ts";
import type { StreamEvent } from "../canonical/stream-event.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { collectStreamResponse, newStreamCollector } from "../cache/collect-stream-response.ts";
import type { RawAnswer } from "../cache/raw-answer.ts";
import { wireApi } from "../wire/wire-apis.ts";
import { asBuffer } from "../upstream/as-buffer.ts";
import { createSseSplitter } from "../upstream/sse/create-sse-splitter.ts";

/** The whole answer of a passed-through stream, rebuilt from the events sent. Null when it did not finish. */
function rebuildStreamAnswer(api: WireFormat, events: Uint8Array): CanonicalResponse | null {
  const adapter = wireApi(api).upstream;
  const splitter = createSseSplitter();
  const collector = newStreamCollector();
  let state = adapter.stream.initial();
  const produced: StreamEvent[] = [];
  for (const sse of [...splitter.push(events), ...splitter.end()]) state = adapter.stream.stepInto(state, sse, produced);
  for (const event of produced) collectStreamResponse(collector, event);
  for (const event of adapter.stream.end(state)) collectStreamResponse(collector, event);
  return collector.response;
}

/** A passed-through JSON answer read into the canonical model; null when it is not a valid answer. */
function decodeAnswerText(api: WireFormat, text: string): CanonicalResponse | null {
  try {
    return wireApi(api).upstream.decodeResponse(JSON.parse(text)).value;
  } catch {
    return null;
  }
}

/**
 * A raw cached answer read at its first hit (see `RawAnswer`), never on the request that stored it;
 * its kept usage wins over the text's.
 */
export function decodeRawAnswer(raw: RawAnswer): CanonicalResponse | null {
  const bytes = raw.bytes.length === 1 ? asBuffer(raw.bytes[0]!) : Buffer.concat(raw.bytes);
  const response = raw.kind === "json" ? decodeAnswerText(raw.api, bytes.toString()) : rebuildStreamAnswer(raw.api, bytes);
  return response && raw.usage ? { ...response, usage: raw.usage } : response;
}
