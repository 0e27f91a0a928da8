import type { NewUsageRecord } from "../db/schema/usage.ts";
import type { UsageStore } from "./create-usage-store.ts";

export interface UsageWriterOptions {
  readonly store: UsageStore;
  readonly batchRows: number;
  readonly flushIntervalMs: number;
  /** Rows held while the store is failing; past it new rows are dropped and counted. */
  readonly maxBufferRows: number;
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  readonly log?: (line: string) => void;
}

export interface UsageWriter {
  /** Queues a row; never blocks and never throws. */
  record(row: NewUsageRecord): void;
  /** Writes everything queued, retrying with backoff until done or `timeoutMs` passes (shutdown). */
  flush(timeoutMs?: number): Promise<void>;
  /** Rows waiting to be written (metrics gauge). */
  readonly backlog: number;
  /** Rows dropped because the buffer was full (metrics counter). */
  readonly dropped: number;
  /** Stops the timers after a final flush. */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * Usage off the hot path: rows are buffered and inserted in batches (every `flushIntervalMs`, or at
 * once when a batch is full). A failed insert keeps its rows at the head of the buffer and is retried
 * with exponential backoff; request ids are unique, so a batch that did land before the error was
 * reported is not counted twice when retried.
 */
export function createUsageWriter(options: UsageWriterOptions): UsageWriter {
  const { store, batchRows, flushIntervalMs, maxBufferRows } = options;
  const retryMinMs = options.retryMinMs ?? 100;
  const retryMaxMs = options.retryMaxMs ?? 10_000;
  const log = options.log ?? ((line: string) => console.warn(line));
  const buffer: NewUsageRecord[] = [];
  let dropped = 0;
  let failures = 0;
  let inFlight: Promise<boolean> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let timerIsRetry = false;
  let closed = false;

  function schedule(delayMs: number, retry: boolean): void {
    if (closed || (timer && !(retry && !timerIsRetry))) return;
    if (timer) clearTimeout(timer);
    timerIsRetry = retry;
    timer = setTimeout(() => {
      timer = null;
      void drain();
    }, delayMs);
    timer.unref?.();
  }

  /**
   * Writes batches: with `whole`, until the buffer is empty (the timer, a flush); without, only full
   * ones (a batch has just filled up), and the rows left wait for the timer. Writing out whatever
   * had arrived during the last insert made batches of about 50 rows under the bench's load instead
   * of 200, and each insert has a cost of its own. False when the store failed (a retry is scheduled).
   */
  async function writeAll(whole: boolean): Promise<boolean> {
    try {
      while (whole ? buffer.length > 0 : buffer.length >= batchRows) {
        const batch = buffer.slice(0, batchRows);
        await store.insert(batch);
        buffer.splice(0, batch.length);
        if (failures > 0) log(JSON.stringify({ level: "info", msg: "usage writes recovered", backlog: buffer.length }));
        failures = 0;
      }
      if (buffer.length > 0) schedule(flushIntervalMs, false);
      return true;
    } catch (err) {
      failures++;
      const delay = Math.min(retryMaxMs, retryMinMs * 2 ** (failures - 1));
      if (failures === 1) {
        log(JSON.stringify({ level: "warn", msg: "usage write failed; retrying with backoff", backlog: buffer.length, error: err instanceof Error ? err.message : String(err) }));
      }
      schedule(delay, true);
      return false;
    }
  }

  /** One writer at a time; `inFlight` is cleared only after it has been set (never by a run that ended at once). */
  function drain(whole = true): Promise<boolean> {
    if (inFlight) return inFlight;
    if (buffer.length === 0) return Promise.resolve(true);
    const run = writeAll(whole).finally(() => {
      if (inFlight === run) inFlight = null;
    });
    inFlight = run;
    return run;
  }

  return {
    record(row) {
      if (buffer.length >= maxBufferRows) {
        if (dropped++ === 0) log(JSON.stringify({ level: "error", msg: "usage buffer full; dropping rows", maxBufferRows }));
        return;
      }
      buffer.push(row);
      if (failures > 0) return; // the retry timer owns the next attempt
      if (buffer.length >= batchRows && !inFlight) void drain(false);
      else schedule(flushIntervalMs, false);
    },
    async flush(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (buffer.length > 0 || inFlight) {
        const ok = await drain();
        if (ok && buffer.length === 0) return;
        // Rows left by a run that wrote only full batches go out at once.
        if (ok) continue;
        const wait = Math.min(retryMaxMs, retryMinMs * 2 ** Math.max(0, failures - 1));
        if (Date.now() + wait > deadline) {
          log(JSON.stringify({ level: "error", msg: "usage flush gave up", backlog: buffer.length }));
          return;
        }
        await Bun.sleep(wait);
      }
    },
    get backlog() {
      return buffer.length;
    },
    get dropped() {
      return dropped;
    },
    async close(timeoutMs) {
      await this.flush(timeoutMs);
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
