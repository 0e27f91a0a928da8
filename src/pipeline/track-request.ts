import type { Usage } from "../canonical/usage.ts";
import type { RecordEndpoint, RequestObserver, RequestRecord } from "../canonical/request-record.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The fields a request learns as it goes; `finish` fills in the timing and reports it once. */
export interface RequestTracker {
  readonly fields: Partial<Mutable<RequestRecord>> & { warnings: string[] };
  /** The response (headers and first bytes) is about to go out. */
  markFirstByte(): void;
  finish(status: number, end?: { usage?: Usage; streamError?: string; clientAborted?: boolean; errorType?: string; limitsCharged?: boolean }): void;
}

/** Tracks one request for the observers; with none, every call is a no-op on a shared object. */
export function trackRequest(observe: RequestObserver | undefined, requestId: string, endpoint: RecordEndpoint, stream: () => boolean): RequestTracker {
  const startedAt = Date.now();
  const started = performance.now();
  const fields: RequestTracker["fields"] = { warnings: [] };
  let ttfbMs: number | undefined;
  let done = false;
  return {
    fields,
    markFirstByte() {
      ttfbMs ??= performance.now() - started;
    },
    finish(status, end = {}) {
      if (done || !observe) return;
      done = true;
      const record: RequestRecord = {
        ...fields,
        requestId,
        startedAt,
        endpoint,
        stream: stream(),
        status,
        clientAborted: end.clientAborted ?? false,
        latencyMs: performance.now() - started,
        cacheHit: fields.cacheHit ?? false,
        attempts: fields.attempts ?? 0,
        warnings: fields.warnings,
        ...(ttfbMs !== undefined ? { ttfbMs } : {}),
        ...(end.usage ? { usage: end.usage } : {}),
        ...(end.streamError ? { streamError: end.streamError } : {}),
        ...(end.errorType ? { errorType: end.errorType } : {}),
        ...(end.limitsCharged ? { limitsCharged: true } : {}),
      };
      try {
        observe(record);
      } catch {
        // An observer must never break a request; observers log their own failures.
      }
    },
  };
}
