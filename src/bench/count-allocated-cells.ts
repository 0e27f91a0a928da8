import { heapStats } from "bun:jsc";

/** Cells (objects, strings, closures, arrays …) a call allocates on JSC's heap, by cell type, most first. */
export interface AllocatedCells {
  readonly perCall: number;
  readonly byType: ReadonlyArray<{ readonly type: string; readonly perCall: number }>;
}

interface HeapCount {
  /** The heap's size after its last collection: it changes only when one runs. */
  readonly size: number;
  readonly counts: Readonly<Record<string, number>>;
}

const countHeap = (): HeapCount => {
  const stats = heapStats();
  return { size: stats.heapSize, counts: stats.objectTypeCounts };
};

/** Cells of each type added from `before` to `after`; undefined when a collection ran between them (a count fell, or the size moved). */
function added(before: HeapCount, after: HeapCount): Map<string, number> | undefined {
  if (before.size !== after.size) return undefined;
  const out = new Map<string, number>();
  for (const type of new Set([...Object.keys(before.counts), ...Object.keys(after.counts)])) {
    const cells = (after.counts[type] ?? 0) - (before.counts[type] ?? 0);
    if (cells < 0) return undefined;
    if (cells > 0) out.set(type, cells);
  }
  return out;
}

const sum = (cells: ReadonlyMap<string, number>): number => [...cells.values()].reduce((total, n) => total + n, 0);

/** Cells a batch aims at: few enough that most batches fit between two collections. */
const BATCH_CELLS = 5_000;
const MAX_BATCH = 200;
const FIRST_BATCH = 1;
const TRIES = 30;

let walkCells: Map<string, number> | undefined;

/**
 * Counts the heap cells a call allocates: the heap's cells by type (`bun:jsc` heapStats, which
 * counts every cell not yet collected, dead or alive) before and after a batch of calls that no
 * collection interrupted. A count, not a time: a busy machine does not move it, so a change that
 * allocates less shows where CPU times drown in noise (the compilers may still remove an
 * allocation in one run and not another). The walks' own cells (heapStats' answer) are measured
 * with no call between and taken off. Undefined when no batch ran clear of a collection.
 */
export async function countAllocatedCells(call: () => unknown): Promise<AllocatedCells | undefined> {
  const run = async (calls: number): Promise<Map<string, number> | undefined> => {
    const before = countHeap();
    for (let i = 0; i < calls; i++) {
      const out = call();
      if (out instanceof Promise) await out;
    }
    return added(before, countHeap());
  };
  // The walks' own cells, once a process: what a batch of no calls adds (each walk is tens of ms).
  for (let tries = 0; tries < TRIES && !walkCells; tries++) walkCells = await run(0);
  const walks = walkCells;
  if (!walks) return undefined;
  let batch = FIRST_BATCH;
  for (let tries = 0; tries < TRIES; tries++) {
    const cells = await run(batch);
    if (!cells) continue;
    // A first batch of one call sizes the next: as many calls as make about BATCH_CELLS cells.
    const next = Math.max(1, Math.min(MAX_BATCH, Math.floor(BATCH_CELLS / Math.max(1, sum(cells) / batch))));
    if (next > batch * 4) {
      batch = next;
      continue;
    }
    const perCall = new Map<string, number>();
    for (const [type, n] of cells) {
      const own = n - (walks.get(type) ?? 0);
      if (own > 0) perCall.set(type, own / batch);
    }
    const byType = [...perCall].map(([type, n]) => ({ type, perCall: n })).sort((a, b) => b.perCall - a.perCall);
    return { perCall: sum(perCall), byType };
  }
  return undefined;
}
