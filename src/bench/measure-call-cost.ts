import { percentile } from "./percentiles.ts";

export interface CallCostOptions {
  /** Unmeasured calls first, so the JIT has compiled the path and caches hold what a warm request finds. */
  readonly warmup: number;
  /** Timed calls per round. */
  readonly iterations: number;
  readonly rounds: number;
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
 * Times one call at a time with the monotonic clock, the way a request makes it: an async call is
 * awaited (its microtask hop is part of what a request pays). Each round's percentiles come from
 * every call of the round, and the rounds' medians damp a burst of outside load. The call returns
 * a number derived from its result, summed into `sink`.
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
  for (let round = 0; round < options.rounds; round++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < options.iterations; i++) {
      const start = Bun.nanoseconds();
      const out = call();
      sink += typeof out === "number" ? out : await out;
      times[i] = Bun.nanoseconds() - start;
    }
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
