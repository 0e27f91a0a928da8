import { readdirSync, readFileSync } from "node:fs";
import { parseProcStatTreeCpuMs, parseSystemBusyMs } from "./parse-proc-stat-cpu.ts";

/** The servers a run drives besides its own processes: what they do during the run is the run's work. */
const RUN_SERVERS: ReadonlySet<string> = new Set(["postgres", "redis-server"]);

/** The machine's CPU time and the run's own, at one moment. */
export interface CpuSnapshot {
  /** performance.now() when taken, ms. */
  readonly atMs: number;
  /** The machine's busy CPU time so far, every core, ms. */
  readonly busyMs: number;
  /**
   * CPU time so far, by pid, of this process and of every database and Redis server process, each
   * with the children it has waited for (the bench's gateways, wrk runs and scripts; Postgres's
   * ended backends), ms.
   */
  readonly own: ReadonlyMap<number, number>;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Now's snapshot; undefined where there is no procfs. */
export function takeCpuSnapshot(): CpuSnapshot | undefined {
  const procStat = readText("/proc/stat");
  const busyMs = procStat === undefined ? undefined : parseSystemBusyMs(procStat);
  if (busyMs === undefined) return undefined;
  const own = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    if (pid !== process.pid && !RUN_SERVERS.has(readText(`/proc/${pid}/comm`)?.trim() ?? "")) continue;
    const stat = readText(`/proc/${pid}/stat`);
    const ms = stat === undefined ? undefined : parseProcStatTreeCpuMs(stat);
    if (ms !== undefined) own.set(pid, ms);
  }
  return { atMs: performance.now(), busyMs, own };
}

const sum = (values: Iterable<number>): number => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

/**
 * The share (0 to 1) of the machine's CPU time between two snapshots that went to programs other
 * than the run: busy time less the run's own. A process gone by the second snapshot counts for
 * nothing there, but its time is in its parent's children's time, which is counted; so the sum
 * over the second snapshot less the sum over the first is the run's own time, whoever ended.
 */
export function otherCpuShare(before: CpuSnapshot, after: CpuSnapshot, cores: number): number {
  const wallMs = (after.atMs - before.atMs) * cores;
  if (wallMs <= 0) return 0;
  const ownMs = sum(after.own.values()) - sum(before.own.values());
  const otherMs = after.busyMs - before.busyMs - ownMs;
  return Math.min(1, Math.max(0, otherMs / wallMs));
}
