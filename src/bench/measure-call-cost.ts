import { percentile } from "./percentiles.ts";

export interface CallCostOptions {
  /** Unmeasured calls first, so the JIT has compiled the path and caches hold what a warm request finds. */
  readonly warmup: number;
  /** Timed calls per round. */
  readonly iterations: number;
  readonly rounds: number;
  /**
   * Calls under way at once (default 1): that many loops share each round's calls, as requests at
   * that many connections do, so calls waiting on one connection (Redis) share its round trips.
   */
  readonly inFlight?: number;
}

export interface CallCost {
  /**
   * Median over rounds of the process's CPU time (every thread: user + system) over the round ÷ its
   * calls, µs: what the call adds to a request's CPU on average, GC included. CPU time, not the
   * clock, so time the process spent waiting for a core on a shared machine is not counted.
   */
  readonly meanUs: number;
  /** Median over rounds of each round's p50 and p99, µs per call. */
  readonly p50Us: number;
  readonly p99Us: number;
  readonly calls: number;
  /** Sum of what the calls returned: kept and reported so no call's work can be optimised away. */
  readonly sink: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Times each call with the monotonic clock, the way a request makes it: an async call is awaited
 * (its microtask hop is part of what a request pays), one at a time unless `inFlight` says more.
 * Each round's percentiles come from every call of the round, and the rounds' medians damp a
 * burst of outside load. The call returns a number derived from its result, summed into `sink`.
 */
export async function measureCallCost(call: () => number | Promise<number>, options: CallCostOptions): Promise<CallCost> {
  let sink = 0;
  for (let i = 0; i < options.warmup; i++) {
    const out = call();
    sink += typeof out === "number" ? out : await out;
  }
  const means: number[] = [];
  const p50s: number[] = [];
  const p99s: number[] = [];
  const times = new Float64Array(options.iterations);
  const inFlight = Math.max(1, Math.min(options.inFlight ?? 1, options.iterations));
  let next = 0;
  // One loop of calls in turn; with `inFlight` loops, each takes the next call number until the round's are all made.
  const loop = async (): Promise<void> => {
    while (next < options.iterations) {
      const i = next++;
      const start = Bun.nanoseconds();
      const out = call();
      // Awaited before it is added: `sink += await out` would read `sink` before the wait, and lose what other loops added meanwhile.
      const value = typeof out === "number" ? out : await out;
      sink += value;
      times[i] = Bun.nanoseconds() - start;
    }
  };
  for (let round = 0; round < options.rounds; round++) {
    const cpu = process.cpuUsage();
    next = 0;
    if (inFlight === 1) await loop();
    else await Promise.all(Array.from({ length: inFlight }, loop));
    const used = process.cpuUsage(cpu);
    means.push((used.user + used.system) / options.iterations);
    const sorted = times.slice().sort();
    p50s.push(percentile(sorted, 50) / 1000);
    p99s.push(percentile(sorted, 99) / 1000);
    // Let timers and I/O of the process run between rounds, as they would between requests.
    await Bun.sleep(0);
  }
  return { meanUs: median(means), p50Us: median(p50s), p99Us: median(p99s), calls: options.iterations * options.rounds, sink };
}
