// Linux reports utime/stime in clock ticks; USER_HZ is 100 on every mainstream kernel build.
const MS_PER_TICK = 10;

/** utime + stime of one /proc/<pid>/stat line, ms. */
export function parseProcStatCpuMs(stat: string): number | undefined {
  if (!stat.includes(")")) return undefined;
  // Field 2 (comm) may contain spaces and parentheses; everything after its last ")" is fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After comm, fields[0] is field 3 (state), so utime (14) and stime (15) are at 11 and 12.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) * MS_PER_TICK;
}
