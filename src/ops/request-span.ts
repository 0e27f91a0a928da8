import { NOOP_TRACING, type SpanHandle } from "./start-tracing.ts";

const spans = new WeakMap<Request, SpanHandle>();
const NOOP_SPAN = NOOP_TRACING.startSpan("");

/** Ties the request span the HTTP layer opened to its request. */
export function setRequestSpan(request: Request, span: SpanHandle): void {
  spans.set(request, span);
}

/**
 * The request's span, for the pipeline's child spans (`routing`, `upstream attempt`) without
 * changing any handler's signature; the no-op span when tracing is off.
 */
export function requestSpan(request: Request): SpanHandle {
  return spans.get(request) ?? NOOP_SPAN;
}
