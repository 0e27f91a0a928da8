/**
 * What JSC logs of each collection with `BUN_JSC_logGC=1` (to stderr): the environment the bench
 * gives the processes it measures, so a pass can say how often their collectors ran and for how
 * long each stopped the main thread. Logging costs a few lines a collection, tens a second.
 */
export const COLLECTOR_LOG_ENV: Readonly<Record<string, string>> = { BUN_JSC_logGC: "1" };

/** One heap's collections so far, as the log told them. */
export interface CollectorCount {
  readonly eden: number;
  readonly full: number;
  /** Every stop of the world the log timed (`p=`: a collection stops its thread one or more times). */
  readonly stoppedMs: number;
  /** The bytes allocated in each cycle that ended in a collection asked for by allocation (what the log gives as the reason). */
  readonly allocatedBytes: number;
}

/** Each heap's count, by the address the log names it by: the main thread's, and a Worker's of its own (the gateway's PGlite). */
export type HeapCounts = ReadonlyMap<string, CollectorCount>;

export interface CollectorLog {
  /** Reads a chunk of the process's stderr; returns what is not the collector's, for the caller's own record. */
  read(chunk: Uint8Array): Uint8Array;
  /** A copy of each heap's count so far. */
  heaps(): HeapCounts;
}

const HEAP = /^\[GC<(0x[0-9a-f]+)>: /;
const STOP = /p=([0-9.]+) ?ms/g;
const KIND = / START .*=> (Eden|Full)Collection/;
const ALLOCATED = /^Requesting GC because bytes allocated this cycle: (\d+)/;
const OTHER_COLLECTOR_LINE = /^GC END!/;

const ZERO: CollectorCount = { eden: 0, full: 0, stoppedMs: 0, allocatedBytes: 0 };

/** A reader of one process's stderr, which counts what its collectors log and passes the rest on. */
export function createCollectorLog(): CollectorLog {
  const heaps = new Map<string, { eden: number; full: number; stoppedMs: number; allocatedBytes: number }>();
  /** The allocation a "Requesting GC" line gave, for the collection that starts next (its line names the heap). */
  let requested = 0;
  /** A line the last chunk cut, awaiting its end. */
  let partial = "";
  const decoder = new TextDecoder();

  const readLine = (line: string): boolean => {
    const allocated = ALLOCATED.exec(line);
    if (allocated) {
      requested += Number(allocated[1]);
      return true;
    }
    const address = HEAP.exec(line)?.[1];
    if (address === undefined) return OTHER_COLLECTOR_LINE.test(line);
    let heap = heaps.get(address);
    if (!heap) heaps.set(address, (heap = { ...ZERO }));
    const kind = KIND.exec(line)?.[1];
    if (kind !== undefined) {
      if (kind === "Eden") heap.eden++;
      else heap.full++;
      heap.allocatedBytes += requested;
      requested = 0;
    }
    for (const stop of line.matchAll(STOP)) heap.stoppedMs += Number(stop[1]);
    return true;
  };

  return {
    read(chunk) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop()!;
      const others = lines.filter((line) => !readLine(line));
      return others.length === 0 ? EMPTY : Buffer.from(`${others.join("\n")}\n`);
    },
    heaps: () => new Map([...heaps].map(([address, heap]) => [address, { ...heap }])),
  };
}

/**
 * What the busiest heap's collector did between two looks, the one with the most collections in
 * that time: under load, the main thread's (a Worker's heap collects a few times as seldom).
 */
export function busiestBetween(before: HeapCounts, after: HeapCounts): CollectorCount | undefined {
  let busiest: CollectorCount | undefined;
  for (const [address, now] of after) {
    const then = before.get(address) ?? ZERO;
    const delta = { eden: now.eden - then.eden, full: now.full - then.full, stoppedMs: now.stoppedMs - then.stoppedMs, allocatedBytes: now.allocatedBytes - then.allocatedBytes };
    const collections = delta.eden + delta.full;
    if (busiest === undefined || collections > busiest.eden + busiest.full) busiest = delta;
  }
  return busiest;
}

const EMPTY = new Uint8Array(0);
