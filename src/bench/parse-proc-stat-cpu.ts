// Linux reports CPU times in clock ticks; USER_HZ is 100 on every mainstream kernel build.
const MS_PER_TICK = 10;

/** The fields of one /proc/<pid>/stat line after comm: fields[0] is field 3 (state). */
function fieldsAfterComm(stat: string): string[] | undefined {
  if (!stat.includes(")")) return undefined;
  // Field 2 (comm) may contain spaces and parentheses; everything after its last ")" is fixed.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** The sum of the stat fields at `from`..`to` (indexes after comm), ms; undefined when one is missing. */
function sumTicksMs(stat: string, from: number, to: number): number | undefined {
  const fields = fieldsAfterComm(stat);
  if (fields === undefined) return undefined;
  let ticks = 0;
  for (let i = from; i <= to; i++) {
    const value = Number(fields[i]);
    if (fields[i] === undefined || !Number.isFinite(value)) return undefined;
    ticks += value;
  }
  return ticks * MS_PER_TICK;
}

/** utime + stime of one /proc/<pid>/stat line (fields 14 and 15), ms. */
export function parseProcStatCpuMs(stat: string): number | undefined {
  return sumTicksMs(stat, 11, 12);
}

/**
 * utime + stime + cutime + cstime (fields 14 to 17), ms: the process's CPU and that of the children
 * it has waited for, so a child that ran and ended is still counted.
 */
export function parseProcStatTreeCpuMs(stat: string): number | undefined {
  return sumTicksMs(stat, 11, 14);
}

/**
 * The CPU time the whole machine has spent busy, ms, from the `cpu` line of /proc/stat: user, nice,
 * system, irq, softirq and steal (guest time is already inside user); idle and iowait are not busy.
 */
export function parseSystemBusyMs(procStat: string): number | undefined {
  const line = procStat.split("\n", 1)[0] ?? "";
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== "cpu" || fields.length < 9) return undefined;
  // user nice system idle iowait irq softirq steal
  const ticks = fields.slice(1, 9).map(Number);
  if (!ticks.every(Number.isFinite)) return undefined;
  const busy = ticks.reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + value), 0);
  return busy * MS_PER_TICK;
}
