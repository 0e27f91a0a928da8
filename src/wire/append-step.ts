import type { StreamEvent } from "../canonical/stream-event.ts";
import type { StreamEncoder } from "./client-format.ts";
import type { SseEvent } from "./sse-event.ts";
import type { StreamDecoder } from "./upstream-adapter.ts";

/** A decoder's `stepInto` for the events it has no cheaper way to append: `step`'s events appended to `out`. */
export function appendDecoded<S>(step: StreamDecoder<S>["step"], state: S, event: SseEvent, out: StreamEvent[]): S {
  const [next, events] = step(state, event);
  for (const decoded of events) out.push(decoded);
  return next;
}

/** An encoder's `stepInto` for the events it has no cheaper way to append: `step`'s text appended to `out`. */
export function appendEncoded<S>(step: StreamEncoder<S>["step"], state: S, event: StreamEvent, out: string[]): S {
  const [next, text] = step(state, event);
  if (text !== "") out.push(text);
  return next;
}
