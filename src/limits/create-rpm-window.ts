import { RPM_WINDOW_MS } from "./limiter.ts";

/** One account's requests-per-minute window. */
export interface RpmWindow {
  readonly limit: number;
  /** Requests counted in the minute before `at`; also sets `oldest`. */
  count(at: number): number;
  /** When the oldest counted request happened (= `at` when none): a slot frees a minute after it. */
  readonly oldest: number;
  add(at: number): void;
  /** Accepted timestamps, oldest first (for carrying them over when the limit changes). */
  times(): number[];
}

/** Up to this limit the window is exact (a ring of timestamps); above, one-second buckets bound the memory. */
const EXACT_UP_TO = 4096;
const BUCKETS = RPM_WINDOW_MS / 1000;

function createRing(limit: number, carried: readonly number[]): RpmWindow {
  const ring = new Float64Array(limit);
  let next = 0;
  let size = 0;
  let oldest = 0;
  const start = () => (size < limit ? 0 : next);
  const window: RpmWindow = {
    limit,
    count(at) {
      // Timestamps are in order, so the first one inside the window is found by bisection.
      const since = at - RPM_WINDOW_MS;
      const first = start();
      let lo = 0;
      let hi = size;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ring[(first + mid) % limit]! > since) hi = mid;
        else lo = mid + 1;
      }
      oldest = lo < size ? ring[(first + lo) % limit]! : at;
      return size - lo;
    },
    get oldest() {
      return oldest;
    },
    add(at) {
      ring[next] = at;
      next = (next + 1) % limit;
      if (size < limit) size++;
    },
    times() {
      const first = start();
      return Array.from({ length: size }, (_, i) => ring[(first + i) % limit]!);
    },
  };
  for (const at of carried.slice(-limit)) window.add(at);
  return window;
}

function createBuckets(limit: number, carried: readonly number[]): RpmWindow {
  const counts = new Float64Array(BUCKETS);
  const seconds = new Float64Array(BUCKETS).fill(-Infinity);
  let oldest = 0;
  const window: RpmWindow = {
    limit,
    count(at) {
      const now = Math.floor(at / 1000);
      let total = 0;
      let oldestSecond = now;
      for (let i = 0; i < BUCKETS; i++) {
        const second = seconds[i]!;
        if (second > now - BUCKETS) {
          total += counts[i]!;
          if (second < oldestSecond) oldestSecond = second;
        }
      }
      oldest = total > 0 ? Math.max(oldestSecond * 1000, at - RPM_WINDOW_MS + 1) : at;
      return total;
    },
    get oldest() {
      return oldest;
    },
    add(at) {
      const second = Math.floor(at / 1000);
      const i = second % BUCKETS;
      if (seconds[i] !== second) {
        seconds[i] = second;
        counts[i] = 0;
      }
      counts[i]!++;
    },
    times() {
      return [];
    },
  };
  for (const at of carried) window.add(at);
  return window;
}

/**
 * A sliding one-minute window of accepted requests: exact for ordinary limits; for very large
 * (Enterprise) limits, counted per second so its memory stays 60 numbers whatever the limit.
 */
export function createRpmWindow(limit: number, carried: readonly number[] = []): RpmWindow {
  return limit <= EXACT_UP_TO ? createRing(limit, carried) : createBuckets(limit, carried);
}
