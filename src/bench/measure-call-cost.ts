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
  /**
   * Wall time, ms, after which each round stops taking new calls, even short of its count (never
   * under `MIN_CALLS`): the parts' rounds then take about as long on a slow machine as on a fast
   * one, and the quick bench keeps to its minutes. The warmup makes all its calls, so the compilers
   * have done their work before any round. Unset: every call is made.
   */
  readonly roundMs?: number;
  /**
   * Whether the cost section also counts the heap cells a call allocates (default: yes; see
   * countAllocatedCells). Each count walks the whole heap, many times a part: in a process that
   * holds much else (a test run's), the walks take most of a minute.
   */
  readonly countCells?: boolean;
}

/** The fewest calls a round makes under `roundMs`: one slow call must not make a round. */
const MIN_CALLS = 10;

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
  /** The timed calls made, over every round (fewer than asked where `roundMs` cut a round short). */
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
  const roundNs = options.roundMs === undefined ? Number.POSITIVE_INFINITY : options.roundMs * 1e6;
  let next = 0;
  let roundStart = 0;
  let calls = 0;
  /** Whether the round takes another call: its count not yet made, nor its time spent past its first `MIN_CALLS`. */
  const more = (): boolean => next < options.iterations && (next < MIN_CALLS || Bun.nanoseconds() - roundStart < roundNs);
  // One loop of calls in turn; with `inFlight` loops, each takes the next call number until the round's are all made.
  const loop = async (): Promise<void> => {
    while (more()) {
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
    roundStart = Bun.nanoseconds();
    if (inFlight === 1) await loop();
    else await Promise.all(Array.from({ length: inFlight }, loop));
    const used = process.cpuUsage(cpu);
    means.push((used.user + used.system) / next);
    calls += next;
    const sorted = times.slice(0, next).sort();
    p50s.push(percentile(sorted, 50) / 1000);
    p99s.push(percentile(sorted, 99) / 1000);
    // Let timers and I/O of the process run between rounds, as they would between requests.
    await Bun.sleep(0);
  }
  return { meanUs: median(means), p50Us: median(p50s), p99Us: median(p99s), calls, sink };
}
