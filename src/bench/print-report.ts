import { TARGET_ADDED_P50_MS, TARGET_CACHE_SPEEDUP, type BaselineComparison, type CacheComparison, type Comparison } from "./compare-targets.ts";
import type { BenchMeta, BenchReport, ReportGroup } from "./build-report.ts";
import type { CostRow } from "./measure-module-costs.ts";
import type { OpenStreamsResult } from "./run-open-streams.ts";

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

function formatCache(c: CacheComparison | undefined): string[] {
  if (!c) return [];
  const where = c.latencyFromSingleConnection ? "one connection" : "under load";
  return [
    `  cached (hit) vs gateway (miss): p50 ${c.p50Ratio.toFixed(1)}× faster (${where}) (target ≥ ${TARGET_CACHE_SPEEDUP}×) ${mark(c.latencyPass)}` +
      `   · throughput ${c.throughputRatio.toFixed(1)}× (target ≥ ${TARGET_CACHE_SPEEDUP}×) ${mark(c.throughputPass)}`,
  ];
}

/** One line, no mark: which way this checkout moved throughput, CPU and latency against the baseline checkout. */
function formatBaseline(c: BaselineComparison | undefined): string[] {
  if (!c) return [];
  const cpu =
    c.gatewayCpuUsPerRequest === undefined || c.baselineCpuUsPerRequest === undefined || c.cpuDeltaUsPerRequest === undefined
      ? ""
      : ` · CPU ${c.gatewayCpuUsPerRequest.toFixed(0)} vs ${c.baselineCpuUsPerRequest.toFixed(0)} µs/req (${signed(c.cpuDeltaUsPerRequest, 0)})`;
  const where = c.latencyFromSingleConnection ? "one-connection" : "under-load";
  const errors = c.clean ? "" : " · errors on one side: compare with care";
  return [
    `  gateway vs baseline: throughput ${c.throughputRatio.toFixed(2)}×${cpu} · ${where} p50 ${ms(c.gatewayP50Ms)} vs ${ms(c.baselineP50Ms)} ms${errors}`,
  ];
}

/** The in-process cost rows: one line each, p50 against its target where the issues set one. */
export function formatCosts(costs: readonly CostRow[]): string[] {
  const width = Math.max(...costs.map((c) => c.label.length));
  const lines = costs.map((c) => {
    const verdict = c.targetP50Us === undefined ? "" : `  (target ≤ ${c.targetP50Us} µs) ${mark(c.p50Us <= c.targetP50Us)}`;
    const note = c.note ? `  · ${c.note}` : "";
    return `  ${c.label.padEnd(width)}  p50 ${c.p50Us.toFixed(2).padStart(6)} µs  p99 ${c.p99Us.toFixed(2).padStart(7)} µs${verdict}${note}`;
  });
  const calls = costs[0]?.calls ?? 0;
  return [`in-process cost per call (gateway modules on the bench config, ${calls} timed calls per row, median of rounds)`, ...lines];
}

/** Targets of the open-streams row (issue 18). */
export const TARGET_PROBE_TTFB_P99_MS = 50;
export const AIM_RSS_PER_STREAM_BYTES = 64 * 1024;

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(0)} MB`;

/** One hold of the open-streams row: what was held, what failed, new requests meanwhile, and the gateway's footprint. */
export function formatOpenStreams(r: OpenStreamsResult): string[] {
  const which = r.hold === 1 ? "first hold, a process that never held so many" : `hold ${r.hold}, the process already grown by the one before`;
  const out = [`open streams: ${r.streams} slow streams held on one gateway (Chat, tier normal, one event every 2 s), ${which}`];
  if (r.limitNote) out.push(`  ! ${r.limitNote}`);
  out.push(`  all open after ${r.openSec.toFixed(1)} s · ${r.completed} completed · errors ${r.errors} (target 0) ${mark(r.errors === 0 && r.opened === r.streams)}`);
  if (r.firstError) out.push(`  ! first error: ${r.firstError}`);
  out.push(
    `  new requests meanwhile: ${r.probes} one at a time, ${r.probeErrors} errors · time to first byte p50 ${ms(r.probeTtfbP50Ms)} ms, p99 ${ms(r.probeTtfbP99Ms)} ms (target ≤ ${TARGET_PROBE_TTFB_P99_MS}) ${mark(r.probeErrors === 0 && r.probeTtfbP99Ms <= TARGET_PROBE_TTFB_P99_MS)}`,
  );
  out.push(
    `  gateway RSS ${mb(r.before.rssBytes)} → ${mb(r.peak.rssBytes)} at the peak → ${mb(r.after.rssBytes)} 15 s after: ${(r.rssPerStreamBytes / 1024).toFixed(1)} KB per open stream (aim ≤ ${AIM_RSS_PER_STREAM_BYTES / 1024}) ${mark(r.rssPerStreamBytes <= AIM_RSS_PER_STREAM_BYTES)}`,
  );
  out.push(`  gateway descriptors ${r.before.fds} → ${r.peak.fds} at the peak → ${r.after.fds} after`);
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
  out.push(...formatBaseline(group.baselineComparison));
  out.push(...formatComparison("cross", group.crossComparison, group.crossAddedCpuUsPerRequest));
  out.push(...formatCache(group.cacheComparison));
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
  const cacheCompared = report.groups.flatMap((g) => (g.cacheComparison ? [g.cacheComparison] : []));
  if (cacheCompared.length > 0) {
    const passed = cacheCompared.filter((c) => c.latencyPass).length;
    summary.push(`cache hit ≥ ${TARGET_CACHE_SPEEDUP}× faster than a miss (p50): met in ${passed} of ${cacheCompared.length} format/mode pairs`);
  }
  const costs = report.costs && report.costs.length > 0 ? ["", ...formatCosts(report.costs)] : [];
  const timedSections = sections.length > 0 ? ["", sections.join("\n\n"), "", ...summary] : [];
  const streams = (report.openStreams ?? []).flatMap((hold) => ["", ...formatOpenStreams(hold)]);
  return [formatMeta(report.meta), ...costs, ...timedSections, ...streams].join("\n");
}

export function printReport(report: BenchReport): void {
  console.log(formatReport(report));
}
