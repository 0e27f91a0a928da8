import { TARGET_ADDED_P50_MS, TARGET_THROUGHPUT_RATIO } from "./compare-targets.ts";
import type { BenchMeta, BenchReport, ReportGroup } from "./build-report.ts";

const ms = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? "-" : value.toFixed(2));
const mark = (pass: boolean): string => (pass ? "PASS" : "MISS");

export function formatMeta(meta: BenchMeta): string {
  const busy = meta.loadAverage > meta.nproc / 2 ? ` (busy machine: numbers skewed by other programs)` : "";
  return (
    `tool ${meta.tool} · ${meta.connections} connections · ${meta.durationSec}s per scenario + ${meta.latencySec}s at one connection · median of ${meta.rounds} rounds · Bun ${meta.bunVersion} · nproc ${meta.nproc}` +
    ` · load avg ${meta.loadAverage.toFixed(2)}${busy}`
  );
}

function formatGroup(group: ReportGroup): string[] {
  const header = ["target", "req/s", "p50 ms", "p99 ms", "ttfb p50", "cpu µs/req", "errors", "1-conn p50", "1-conn p99"];
  const rows = group.rows.map((row) => [
    row.target,
    row.requestsPerSec.toFixed(0),
    ms(row.p50Ms),
    ms(row.p99Ms),
    ms(row.ttfbP50Ms),
    row.cpuUsPerRequest === undefined ? "-" : row.cpuUsPerRequest.toFixed(0),
    String(row.errors + (row.latency?.errors ?? 0)),
    ms(row.latency?.p50Ms),
    ms(row.latency?.p99Ms),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`;
  const out = [`${group.format} · ${group.mode}`, line(header), ...rows.map(line)];
  for (const row of group.rows) {
    if (row.firstError) out.push(`  ! ${row.target}: ${row.firstError}`);
  }
  const c = group.comparison;
  if (c) {
    out.push(
      `  gateway/bare throughput ${c.throughputRatio.toFixed(3)} (target ≥ ${TARGET_THROUGHPUT_RATIO.toFixed(2)}) ${mark(c.throughputPass)}`,
      `  added p50 ${c.addedP50Ms >= 0 ? "+" : ""}${c.addedP50Ms.toFixed(3)} ms${c.latencyFromSingleConnection ? " (one connection)" : " (under load)"} (target ≤ ${TARGET_ADDED_P50_MS.toFixed(2)}) ${mark(c.latencyPass)}` +
        `   · added p99 ${c.addedP99Ms >= 0 ? "+" : ""}${c.addedP99Ms.toFixed(3)} ms`,
    );
  }
  if (group.addedCpuUsPerRequest !== undefined) {
    out.push(`  gateway CPU beyond bare: ${group.addedCpuUsPerRequest >= 0 ? "+" : ""}${group.addedCpuUsPerRequest.toFixed(0)} µs/req`);
  }
  return out;
}

/** The human report: one table per format and mode, then the target marks. */
export function formatReport(report: BenchReport): string {
  const sections = report.groups.map((group) => formatGroup(group).join("\n"));
  const compared = report.groups.flatMap((g) => (g.comparison ? [g.comparison] : []));
  const passed = compared.filter((c) => c.throughputPass && c.latencyPass).length;
  const summary = compared.length > 0 ? [`targets met in ${passed} of ${compared.length} format/mode pairs`] : [];
  return [formatMeta(report.meta), "", sections.join("\n\n"), "", ...summary].join("\n");
}

export function printReport(report: BenchReport): void {
  console.log(formatReport(report));
}
