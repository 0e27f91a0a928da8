import type { Usage } from "../canonical/usage.ts";
import type { RecordEndpoint, RequestObserver, RequestRecord } from "../canonical/request-record.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** How a request ended, beyond its status. */
export interface RequestEnd {
  usage?: Usage;
  streamError?: string;
  clientAborted?: boolean;
  errorType?: string;
  limitsCharged?: boolean;
}

/** The fields a request learns as it goes; `finish` fills in the timing and reports it once. */
export interface RequestTracker {
  readonly fields: Partial<Mutable<RequestRecord>> & { warnings: string[] };
  /** The response (headers and first bytes) is about to go out. */
  markFirstByte(): void;
  finish(status: number, end?: RequestEnd): void;
}

const NO_END: RequestEnd = {};

/** One request's tracker: a class, so a request makes one object where closures made three. */
class Tracker implements RequestTracker {
  readonly fields: RequestTracker["fields"] = { warnings: [] };
  private readonly startedAt = Date.now();
  private readonly started = performance.now();
  private ttfbMs: number | undefined = undefined;
  private done = false;

  constructor(
    private readonly observe: RequestObserver | undefined,
    private readonly requestId: string,
    private readonly endpoint: RecordEndpoint,
    private readonly stream: () => boolean,
  ) {}

  markFirstByte(): void {
    this.ttfbMs ??= performance.now() - this.started;
  }

  finish(status: number, end: RequestEnd = NO_END): void {
    if (this.done || !this.observe) return;
    this.done = true;
    const { fields } = this;
    // Optional members set one by one: a spread of each would copy the record again.
    const record: Mutable<RequestRecord> = {
      ...fields,
      requestId: this.requestId,
      startedAt: this.startedAt,
      endpoint: this.endpoint,
      stream: this.stream(),
      status,
      clientAborted: end.clientAborted ?? false,
      latencyMs: performance.now() - this.started,
      cacheHit: fields.cacheHit ?? false,
      attempts: fields.attempts ?? 0,
      warnings: fields.warnings,
    };
    if (this.ttfbMs !== undefined) record.ttfbMs = this.ttfbMs;
    if (end.usage) record.usage = end.usage;
    if (end.streamError) record.streamError = end.streamError;
    if (end.errorType) record.errorType = end.errorType;
    if (end.limitsCharged) record.limitsCharged = true;
    try {
      this.observe(record);
    } catch {
      // An observer must never break a request; observers log their own failures.
    }
  }
}

/** Tracks one request for the observers. */
export function trackRequest(observe: RequestObserver | undefined, requestId: string, endpoint: RecordEndpoint, stream: () => boolean): RequestTracker {
  return new Tracker(observe, requestId, endpoint, stream);
}
