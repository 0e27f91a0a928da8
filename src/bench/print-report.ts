import { TARGET_ADDED_P50_MS, type Comparison } from "./compare-targets.ts";
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

const signed = (value: number, digits: number): string => `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;

function formatComparison(target: "gateway" | "cross", c: Comparison | undefined, addedCpu: number | undefined): string[] {
  const out: string[] = [];
  if (c) {
    out.push(
      `  ${target}/bare throughput ${c.throughputRatio.toFixed(3)} (target ≥ ${c.targetRatio.toFixed(2)}) ${mark(c.throughputPass)}` +
        `   · added p50 ${signed(c.addedP50Ms, 3)} ms${c.latencyFromSingleConnection ? " (one connection)" : " (under load)"} (target ≤ ${TARGET_ADDED_P50_MS.toFixed(2)}) ${mark(c.latencyPass)}` +
        `   · added p99 ${signed(c.addedP99Ms, 3)} ms`,
    );
  }
  if (addedCpu !== undefined) out.push(`  ${target} CPU beyond bare: ${signed(addedCpu, 0)} µs/req`);
  return out;
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
  out.push(...formatComparison("gateway", group.comparison, group.addedCpuUsPerRequest));
  out.push(...formatComparison("cross", group.crossComparison, group.crossAddedCpuUsPerRequest));
  return out;
}

/** The human report: one table per format and mode, then the target marks. */
export function formatReport(report: BenchReport): string {
  const sections = report.groups.map((group) => formatGroup(group).join("\n"));
  const summary: string[] = [];
  for (const [label, pick] of [
    ["same-format", (g: ReportGroup) => g.comparison],
    ["cross-format", (g: ReportGroup) => g.crossComparison],
  ] as const) {
    const compared = report.groups.flatMap((g) => {
      const c = pick(g);
      return c ? [c] : [];
    });
    const passed = compared.filter((c) => c.throughputPass && c.latencyPass).length;
    if (compared.length > 0) summary.push(`${label}: targets met in ${passed} of ${compared.length} format/mode pairs`);
  }
  return [formatMeta(report.meta), "", sections.join("\n\n"), "", ...summary].join("\n");
}

export function printReport(report: BenchReport): void {
  console.log(formatReport(report));
}
