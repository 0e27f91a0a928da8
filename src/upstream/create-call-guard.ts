/** Why a guarded upstream call must stop. */
export type AbortCause = "deadline" | "client";

/**
 * Watches in-flight upstream calls for their deadline and for the client going away, on one shared
 * timer. Touching `request.signal` costs Bun several microseconds per request (it starts tracking
 * the socket), so the disconnect watch is attached only to calls still running after `graceMs`:
 * short calls never pay, a long one learns of a departed client at most `graceMs + resolutionMs`
 * late (Bun reports a signal first touched after the client left as already aborted).
 */
export interface CallGuard {
  /** Calls `onAbort` at most once; the returned function stops watching. */
  watch(timeoutMs: number, client: Request, onAbort: (cause: AbortCause) => void): () => void;
}

interface Watched {
  readonly startedAt: number;
  readonly deadlineAt: number;
  readonly client: Request;
  readonly onAbort: (cause: AbortCause) => void;
  listening: boolean;
}

export function createCallGuard(options: { resolutionMs?: number; graceMs?: number } = {}): CallGuard {
  const resolutionMs = options.resolutionMs ?? 50;
  const graceMs = options.graceMs ?? 50;
  const watched = new Set<Watched>();
  let timer: ReturnType<typeof setInterval> | undefined;

  const fire = (entry: Watched, cause: AbortCause): void => {
    if (!watched.delete(entry)) return;
    entry.onAbort(cause);
  };

  const listen = (entry: Watched): void => {
    entry.listening = true;
    const signal = entry.client.signal;
    if (signal.aborted) fire(entry, "client");
    else signal.addEventListener("abort", () => fire(entry, "client"), { once: true });
  };

  const sweep = (): void => {
    const now = performance.now();
    for (const entry of watched) {
      if (now >= entry.deadlineAt) fire(entry, "deadline");
      else if (!entry.listening && now - entry.startedAt >= graceMs) listen(entry);
    }
    if (watched.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    watch(timeoutMs, client, onAbort) {
      const startedAt = performance.now();
      const entry: Watched = { startedAt, deadlineAt: startedAt + timeoutMs, client, onAbort, listening: false };
      watched.add(entry);
      if (timer === undefined) {
        timer = setInterval(sweep, resolutionMs);
        // Never keep the process alive just to watch calls.
        timer.unref();
      }
      return () => {
        watched.delete(entry);
      };
    },
  };
}
