/** Span attributes; an undefined value is left out. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/**
 * One span of a request's trace. The HTTP layer opens the request's span and hands it down the
 * pipeline, which opens its children (`routing`, each `upstream attempt`); with tracing off every
 * span is NOOP_SPAN.
 */
export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed (no message beyond what the caller passes: never a body or a key). */
  fail(message: string): void;
  end(): void;
  /** A span under this one (routing, each upstream attempt). */
  child(name: string, attributes?: SpanAttributes): TraceSpan;
}

/** The span of a request that is not traced: a shared object and empty calls. */
export const NOOP_SPAN: TraceSpan = Object.freeze({
  setAttributes() {},
  fail() {},
  end() {},
  child: () => NOOP_SPAN,
});
