import { readFileSync, writeFileSync } from "node:fs";

/** A process's resident memory now and its high-water mark, bytes, from /proc/<pid>/status. */
export interface ProcessMemory {
  readonly rssBytes: number;
  readonly peakBytes: number;
}

/** VmRSS and VmHWM of one /proc/<pid>/status text; undefined when either is missing. */
function parseProcStatusMemory(status: string): ProcessMemory | undefined {
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  const peak = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (rss === undefined || peak === undefined) return undefined;
  return { rssBytes: Number(rss) * 1024, peakBytes: Number(peak) * 1024 };
}

/** Undefined where there is no procfs, or once the process has gone. */
export function readProcessMemory(pid: number): ProcessMemory | undefined {
  try {
    return parseProcStatusMemory(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The peak resident memory of a process over a stretch of time. Linux resets a process's VmHWM to
 * its current RSS when "5" is written to its clear_refs (4.0+; needs the right to write there, as
 * the process's owner has); where that fails, RSS is sampled every 100 ms instead, which can miss
 * a short spike.
 */
export interface PeakProbe {
  /** The highest RSS seen since the probe started, bytes; undefined without procfs. */
  stop(): number | undefined;
}

export function startPeakProbe(pid: number): PeakProbe {
  let reset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    reset = true;
  } catch {
    reset = false;
  }
  let sampled = readProcessMemory(pid)?.rssBytes;
  const timer = reset
    ? undefined
    : setInterval(() => {
        const now = readProcessMemory(pid)?.rssBytes;
        if (now !== undefined && (sampled === undefined || now > sampled)) sampled = now;
      }, 100);
  return {
    stop() {
      if (timer) clearInterval(timer);
      const now = readProcessMemory(pid);
      if (reset) return now?.peakBytes;
      return now === undefined ? sampled : Math.max(sampled ?? 0, now.rssBytes);
    },
  };
}
