import type { JitCodeLoad } from "./read-jit-dump.ts";

/** The name of the JIT code at an address at a moment, or undefined where no compiled code lay then. */
export type JitSymbols = (ip: bigint, timeSec: number) => string | undefined;

/**
 * Names addresses in JIT code. A JIT reuses the memory of code it threw away, so one address can
 * name several functions over a run: the one loaded last before the sample, covering the address,
 * is the one that ran (a map of names by address alone pinned WebAssembly to the main thread).
 */
export function createJitSymbols(loads: readonly JitCodeLoad[]): JitSymbols {
  const sorted = [...loads].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  let longest = 0n;
  for (const load of sorted) if (load.end - load.start > longest) longest = load.end - load.start;
  return (ip, timeSec) => {
    // The last load starting at or below the address; earlier ones can cover it only within the longest code's length.
    let low = 0;
    let high = sorted.length - 1;
    let last = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]!.start <= ip) {
        last = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    let found: JitCodeLoad | undefined;
    for (let i = last; i >= 0 && sorted[i]!.start + longest > ip; i--) {
      const load = sorted[i]!;
      if (ip < load.end && load.timeSec <= timeSec && (found === undefined || load.timeSec > found.timeSec)) found = load;
    }
    return found?.name;
  };
}
