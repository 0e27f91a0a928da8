/**
 * What JSC logs of each collection with `BUN_JSC_logGC=1` (to stderr): the environment the bench
 * gives the processes it measures, so a pass can say how often their collectors ran and for how
 * long each stopped the main thread. Logging costs a few lines a collection, tens a second.
 */
export const COLLECTOR_LOG_ENV: Readonly<Record<string, string>> = { BUN_JSC_logGC: "1" };

/** A process's collections so far, as its log told them. */
export interface CollectorCount {
  readonly eden: number;
  readonly full: number;
  /** Every stop of the world the log timed (`p=`: a collection stops the main thread one or more times). */
  readonly stoppedMs: number;
  /** The bytes allocated in each cycle that ended in a collection asked for by allocation (what the log gives as the reason). */
  readonly allocatedBytes: number;
}

export interface CollectorLog {
  /** Reads a chunk of the process's stderr; returns what is not the collector's, for the caller's own record. */
  read(chunk: Uint8Array): Uint8Array;
  readonly count: CollectorCount;
}

const STOP = /p=([0-9.]+) ?ms/g;
const KIND = /=> (Eden|Full)Collection/;
const ALLOCATED = /^Requesting GC because bytes allocated this cycle: (\d+)/;
/** Every line JSC's collector log writes: a collection's own lines, its reason, its end. */
const COLLECTOR_LINE = /^(\[GC<|Requesting GC because |GC END!)/;

/** A reader of one process's stderr, which counts what its collector logs and passes the rest on. */
export function createCollectorLog(): CollectorLog {
  let eden = 0;
  let full = 0;
  let stoppedMs = 0;
  let allocatedBytes = 0;
  /** A line the last chunk cut, awaiting its end. */
  let partial = "";
  const decoder = new TextDecoder();

  const readLine = (line: string): boolean => {
    if (!COLLECTOR_LINE.test(line)) return false;
    const allocated = ALLOCATED.exec(line);
    if (allocated) allocatedBytes += Number(allocated[1]);
    if (line.includes(" START ")) {
      const kind = KIND.exec(line)?.[1];
      if (kind === "Eden") eden++;
      else if (kind === "Full") full++;
    }
    for (const stop of line.matchAll(STOP)) stoppedMs += Number(stop[1]);
    return true;
  };

  return {
    read(chunk) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop()!;
      const others = lines.filter((line) => !readLine(line));
      return others.length === 0 ? EMPTY : Buffer.from(`${others.join("\n")}\n`);
    },
    get count() {
      return { eden, full, stoppedMs, allocatedBytes };
    },
  };
}

const EMPTY = new Uint8Array(0);
