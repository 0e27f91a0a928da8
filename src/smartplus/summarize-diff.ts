/** Files a unified diff touches and its added and removed lines. */
export interface DiffStat {
  readonly files: readonly string[];
  readonly added: number;
  readonly removed: number;
}

export function summarizeDiff(diff: string): DiffStat {
  const files: string[] = [];
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++ ")) {
      const path = line.slice(4).replace(/^b\//, "").trim();
      if (path !== "/dev/null") files.push(path);
    } else if (line.startsWith("+")) added++;
    // `--- a/path` names the old file, not a removed line.
    else if (line.startsWith("-") && !line.startsWith("--- ")) removed++;
  }
  return { files, added, removed };
}

/** `2 files changed (src/a.ts, README.md), +3 −1` */
export function describeDiffStat(stat: DiffStat): string {
  const names = stat.files.length <= 5 ? stat.files.join(", ") : `${stat.files.slice(0, 5).join(", ")} …`;
  return `${stat.files.length} file${stat.files.length === 1 ? "" : "s"} changed (${names}), +${stat.added} −${stat.removed}`;
}
