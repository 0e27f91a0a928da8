/**
 * Deadlines for many in-flight calls on one shared timer. A timer per request costs a
 * setTimeout/clearTimeout pair on the hot path; a sweep every `resolutionMs` over a set of
 * pending calls costs an add and a delete, and a deadline fires at most `resolutionMs` late.
 */
export interface Deadlines {
  /** Calls `onExpire` once `ms` have passed, unless the returned function is called first. */
  track(ms: number, onExpire: () => void): () => void;
}

interface Pending {
  readonly at: number;
  readonly onExpire: () => void;
}

export function createDeadlines(resolutionMs = 100): Deadlines {
  const pending = new Set<Pending>();
  let timer: ReturnType<typeof setInterval> | undefined;

  const sweep = (): void => {
    const now = performance.now();
    for (const entry of pending) {
      if (entry.at > now) continue;
      pending.delete(entry);
      entry.onExpire();
    }
    if (pending.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return {
    track(ms, onExpire) {
      const entry: Pending = { at: performance.now() + ms, onExpire };
      pending.add(entry);
      if (timer === undefined) {
        timer = setInterval(sweep, resolutionMs);
        // Never keep the process alive just to watch deadlines.
        timer.unref();
      }
      return () => {
        pending.delete(entry);
      };
    },
  };
}
