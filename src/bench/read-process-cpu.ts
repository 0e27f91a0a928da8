import { readFileSync } from "node:fs";
import { parseProcStatCpuMs } from "./parse-proc-stat-cpu.ts";

/**
 * CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat; undefined where
 * there is no procfs. CPU per request is steadier than req/s when the machine is shared: it does
 * not change with how much CPU other programs take.
 */
export function readProcessCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return parseProcStatCpuMs(stat);
}
