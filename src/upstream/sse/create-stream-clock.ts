/** How long a committed stream may be quiet: towards the client, and from its upstream. */
export interface StreamLimits {
  /** Nothing sent to the client for this long: a keep-alive goes out, ms. */
  readonly keepaliveMs: number;
  /** Nothing heard from the upstream for this long: the stream is ended, ms. */
  readonly idleMs: number;
}

/**
 * One watched stream. The pipe bumps the counters as bytes move (an increment, no clock read, no
 * timer reset); the clock's sweep turns a counter that stopped moving into a time of silence.
 */
export interface StreamBeat {
  /** Bump when bytes arrive from the upstream. */
  heard: number;
  /** Bump when bytes go to the client. */
  sent: number;
  /** Stops watching; idempotent. */
  stop(): void;
}

export interface StreamHandlers {
  /** The client has had nothing for `keepaliveMs`: send it a keep-alive (or nothing, if a write is pending). */
  quiet(): void;
  /** The upstream has sent nothing for `idleMs`: end the stream. Called once; the watch stops first. */
  idle(): void;
}

interface Entry extends StreamBeat {
  readonly limits: StreamLimits;
  readonly handlers: StreamHandlers;
  seenHeard: number;
  seenSent: number;
  heardAt: number;
  sentAt: number;
}

export interface StreamClock {
  watch(limits: StreamLimits, handlers: StreamHandlers): StreamBeat;
}

/** The sweep runs at least this often, and often enough to be within a quarter of the shortest limit. */
const MAX_TICK_MS = 1000;

/**
 * One timer for every open stream (10,000 streams cost one sweep a second, not 10,000 timers reset
 * on every chunk). The timer runs only while a stream is watched and never keeps the process alive.
 */
export function createStreamClock(): StreamClock {
  const entries = new Set<Entry>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let tickMs = MAX_TICK_MS;

  const sweep = (): void => {
    const now = performance.now();
    for (const entry of entries) {
      if (entry.heard !== entry.seenHeard) {
        entry.seenHeard = entry.heard;
        entry.heardAt = now;
      }
      if (entry.sent !== entry.seenSent) {
        entry.seenSent = entry.sent;
        entry.sentAt = now;
      }
      if (now - entry.heardAt >= entry.limits.idleMs) {
        entry.stop();
        entry.handlers.idle();
      } else if (now - entry.sentAt >= entry.limits.keepaliveMs) {
        entry.sentAt = now;
        entry.handlers.quiet();
      }
    }
    if (entries.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
      tickMs = MAX_TICK_MS;
    }
  };

  const start = (wanted: number): void => {
    if (timer !== undefined && wanted >= tickMs) return;
    if (timer !== undefined) clearInterval(timer);
    tickMs = wanted;
    timer = setInterval(sweep, tickMs);
    timer.unref();
  };

  return {
    watch(limits, handlers) {
      const now = performance.now();
      const entry: Entry = {
        heard: 0,
        sent: 0,
        seenHeard: 0,
        seenSent: 0,
        heardAt: now,
        sentAt: now,
        limits,
        handlers,
        stop: () => void entries.delete(entry),
      };
      entries.add(entry);
      start(Math.max(10, Math.min(MAX_TICK_MS, Math.floor(Math.min(limits.keepaliveMs, limits.idleMs) / 4))));
      return entry;
    },
  };
}
