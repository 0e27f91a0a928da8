import { CPU_RATIO_TARGETS, P99_ALLOWANCE_MS, PATH_KIND_LABELS, type Verdict } from "./bench-targets.ts";
import type { BenchMeta, BenchReport, BodyRow, BudgetRow, LongStreamRow, MemorySection, PathRow } from "./build-report.ts";
import type { BaselineRounds } from "./compare-with-baseline.ts";
import type { CostRow } from "./measure-module-costs.ts";
import { formatOpenStreams } from "./format-open-streams.ts";
import { mb, ms } from "./format-units.ts";
import { THREAD_ROLES } from "./read-thread-cpu.ts";
import type { PassProfile } from "./record-perf.ts";
import type { CollectorUse, PassResult } from "./run-scenario.ts";
import { TRICKLED_STREAM_GAP_MS } from "./scenarios.ts";
import type { SoakSummary } from "./summarize-soak.ts";

const us = (value: number | undefined, digits = 0): string => (value === undefined || Number.isNaN(value) ? "-" : value.toFixed(digits));
const signed = (value: number | undefined, digits: number): string => (value === undefined ? "-" : `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`);
const mark = (v: Verdict | undefined): string => (v === undefined || v.pass === undefined ? "-" : v.pass ? "PASS" : "MISS");
const pair = (p: PassResult | undefined): string => (p === undefined ? "-" : `${ms(p.p50Ms)} / ${ms(p.p99Ms)}`);
const errors = (...passes: ReadonlyArray<PassResult | undefined>): number => passes.reduce((sum, p) => sum + (p?.errors ?? 0), 0);

/** Columns padded to their widest cell; text columns (the first, and those listed) left-aligned, numbers right-aligned. */
function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, textColumns: readonly number[] = []): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const left = (i: number): boolean => i === 0 || textColumns.includes(i);
  const line = (cells: readonly string[]): string => `  ${cells.map((c, i) => (left(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`.trimEnd();
  return [line(header), ...rows.map(line)];
}

/** Past this share of the CPU taken by other programs during the run, its numbers are labelled skewed. */
const BUSY_SHARE = 0.1;

const connectionsText = (n: number): string => `${n} connection${n === 1 ? "" : "s"}`;

export function formatMeta(meta: BenchMeta): string {
  const share = meta.otherCpuShare;
  const others =
    share === undefined ? "" : ` · other programs took ${(share * 100).toFixed(0)} % of the CPU${share > BUSY_SHARE ? " (busy machine: numbers skewed by them)" : ""}`;
  const database = meta.database === "postgres" ? `Postgres${meta.redis ? " + Redis" : ""}` : `PGlite${meta.redis ? " + Redis" : ""}`;
  const took = meta.elapsedSec === undefined ? "" : ` · took ${meta.elapsedSec.toFixed(0)} s`;
  const env = Object.entries(meta.baseline?.env ?? {}).map(([key, value]) => ` ${key}=${value}`);
  const baseline = meta.baseline === undefined ? "" : ` · baseline ${meta.baseline.dir}${env.join("")}`;
  // The passes and rounds of the scenarios, when any ran; the soak's length, when it did.
  const scenarios = meta.sections.some((s) => s === "paths" || s === "bodies" || s === "long-stream")
    ? `${meta.settleSec > 0 ? ` · ${meta.settleSec}s settling first` : ""} · ${connectionsText(meta.connections)} ${meta.durationSec}s + 1 connection ${meta.latencySec}s per scenario · median of ${meta.rounds} interleaved rounds`
    : "";
  const soak = meta.sections.includes("soak") ? ` · a ${meta.soakMinutes}-minute soak at ${connectionsText(meta.connections)}` : "";
  return `${meta.profile} · gateway on ${database} · tool ${meta.tool}${scenarios}${soak} · Bun ${meta.bunVersion} · nproc ${meta.nproc}${others}${baseline}${took}`;
}

const MODE_LABELS: Readonly<Record<PathRow["mode"], string>> = { json: "JSON", stream: "stream" };

/** The row's kind and format; the extra rows (a cache hit, the baseline checkout's same-format path) name their mode, as the issue's rows do. */
function pathLabel(row: PathRow): string {
  const mode = MODE_LABELS[row.mode];
  const kind = row.kind === "cached" ? `cache hit, ${mode}` : row.kind === "baseline" ? `baseline checkout, same-format ${mode}` : PATH_KIND_LABELS[row.kind];
  return `${kind} · ${row.format}${row.upstreamApi !== row.format ? ` → ${row.upstreamApi}` : ""}`;
}

export function formatPaths(rows: readonly PathRow[], connections: number): string[] {
  if (rows.length === 0) return [];
  // At one connection the loaded pass and the one-connection pass would read alike: the loaded one says so.
  const loaded = connections === 1 ? "@1 loaded" : `@${connections}`;
  const header = ["row", "gw µs/req", "bare µs/req", "ratio", `gw p50/p99 ${loaded}`, `bare p50/p99 ${loaded}`, "gw p50/p99 @1", "bare p50/p99 @1", "gw peak RSS", "bare RSS", "errors", "CPU", "p99", "RSS"];
  const body = rows.map((r) => [
    pathLabel(r),
    us(r.gateway.load?.cpuUsPerRequest),
    us(r.bare?.load?.cpuUsPerRequest),
    r.cpuRatio === undefined ? "-" : `${r.cpuRatio.toFixed(2)}×`,
    pair(r.gateway.load),
    pair(r.bare?.load),
    pair(r.gateway.single),
    pair(r.bare?.single),
    mb(r.gateway.load?.peakRssBytes),
    mb(r.bare?.load?.peakRssBytes),
    String(errors(r.gateway.load, r.gateway.single, r.bare?.load, r.bare?.single)),
    mark(r.verdicts?.cpu),
    mark(r.verdicts?.p99),
    mark(r.verdicts?.rss),
  ]);
  const rss = rows.find((r) => r.verdicts)?.verdicts?.rss.target ?? "-";
  const targets = (Object.keys(CPU_RATIO_TARGETS) as (keyof typeof CPU_RATIO_TARGETS)[])
    .map((kind) => `${PATH_KIND_LABELS[kind]} CPU ≤ ${CPU_RATIO_TARGETS[kind].toFixed(1)}×, p99 ≤ bare + ${P99_ALLOWANCE_MS[kind]} ms`)
    .join("; ");
  const firstErrors = rows.flatMap((r) => [r.gateway.load, r.gateway.single].flatMap((p) => (p?.firstError ? [`  ! ${pathLabel(r)}: ${p.firstError}`] : [])));
  return [
    "path rows: CPU per request = the process's utime + stime (all threads) ÷ requests in the loaded pass; times in ms; RSS = the process's peak in that pass",
    ...table(header, body),
    ...firstErrors,
    `  targets: ${targets}; RSS ${rss}`,
  ];
}

export function formatBodies(rows: readonly BodyRow[]): string[] {
  if (rows.length === 0) return [];
  // The baseline checkout's columns only when it ran.
  const withBaseline = rows.some((r) => r.baseline);
  const header = [
    "body (Messages, same-format, 1 connection)", "size", "direct p50", "gw p50", "added p50", "target", "bare added p50", "gw µs/req", "bare µs/req", "gw beyond bare", "gw µs per KB",
    ...(withBaseline ? ["baseline p50", "baseline µs/req"] : []),
    "errors", "p50", "slope",
  ];
  const body = rows.map((r) => [
    r.label,
    `${(r.bytes / 1024).toFixed(r.bytes < 10 * 1024 ? 1 : 0)} KB`,
    ms(r.direct?.p50Ms),
    ms(r.gateway?.p50Ms),
    signed(r.addedP50Ms, 2),
    r.addedP50?.target ?? "-",
    signed(r.bareAddedP50Ms, 2),
    us(r.gateway?.cpuUsPerRequest),
    us(r.bare?.cpuUsPerRequest),
    signed(r.cpuBeyondBareUs, 0),
    us(r.slopeUsPerKb, 2),
    ...(withBaseline ? [ms(r.baseline?.p50Ms), us(r.baseline?.cpuUsPerRequest)] : []),
    String(errors(r.direct, r.bare, r.gateway, r.baseline)),
    mark(r.addedP50),
    mark(r.slope),
  ]);
  const slope = rows.find((r) => r.slope)?.slope?.target;
  return [
    "big conversations: added p50 = gateway − the direct call to the simulated upstream (bare added p50: the bare proxy's, a hop's floor); µs per KB = gateway CPU per request above the small request's ÷ the extra KB",
    ...table(header, body),
    ...(slope ? [`  CPU grows no faster than the body: ${slope}`] : []),
  ];
}

/** How the long stream's events came, and its path: "in one burst · messages → chat". */
const longStreamLabel = (r: LongStreamRow): string => `${r.kind === "long-stream" ? "in one burst" : `one every ${TRICKLED_STREAM_GAP_MS} ms`} · ${r.format} → ${r.upstreamApi}`;

export function formatLongStreams(rows: readonly LongStreamRow[]): string[] {
  if (rows.length === 0) return [];
  const baseline = rows.some((r) => r.baseline !== undefined);
  const header = [
    "events come (loaded pass)",
    "events",
    "bare µs/req",
    "translated µs/req",
    "beyond bare per event",
    "target",
    "same-format µs/req",
    "beyond bare per event",
    ...(baseline ? ["baseline µs/req", "baseline beyond bare per event"] : []),
    "errors",
    "verdict",
  ];
  const body = rows.map((r) => [
    longStreamLabel(r),
    r.events === undefined ? "-" : String(r.events),
    us(r.bare?.cpuUsPerRequest),
    us(r.cross?.cpuUsPerRequest),
    r.crossUsPerEvent === undefined ? "-" : `${r.crossUsPerEvent.toFixed(3)} µs`,
    r.verdict.target,
    us(r.gateway?.cpuUsPerRequest),
    r.sameUsPerEvent === undefined ? "-" : `${r.sameUsPerEvent.toFixed(3)} µs`,
    ...(baseline ? [us(r.baseline?.cpuUsPerRequest), r.baselineUsPerEvent === undefined ? "-" : `${r.baselineUsPerEvent.toFixed(3)} µs`] : []),
    String(errors(r.bare, r.cross, r.gateway, r.baseline)),
    mark(r.verdict),
  ]);
  return [
    "long streams: the gateway's CPU per event beyond the bare proxy's; a 2,000-event answer in one burst, and a 200-event one trickled as a model streams (each event read and written on its own)",
    ...table(header, body),
  ];
}

/** A pass's collector columns: collections per 1,000 requests, the main thread's stops and the allocation per request. */
const collectorCells = (c: CollectorUse | undefined): string[] =>
  c === undefined ? ["-", "-", "-", "-"] : [c.fullPer1k.toFixed(1), c.edenPer1k.toFixed(1), us(c.stoppedUsPerRequest, 1), us(c.allocatedKbPerRequest, 1)];

/** What each process's threads spent of its CPU per request: where the gateway's CPU beyond the bare proxy's goes. */
export function formatThreads(paths: readonly PathRow[], longStreams: readonly LongStreamRow[]): string[] {
  type Group = { readonly label: string; readonly processes: ReadonlyArray<readonly [string, PassResult | undefined]> };
  const groups: Group[] = [
    ...paths.map((r) => ({ label: pathLabel(r), processes: [["gateway", r.gateway.load], ["bare", r.bare?.load]] as const })),
    ...longStreams.map((r) => ({ label: `long stream, ${longStreamLabel(r)}`, processes: [["translated", r.cross], ["same-format", r.gateway], ["bare", r.bare]] as const })),
  ];
  // The row's label goes on its first process that was split, whichever that is.
  const body = groups.flatMap(({ label, processes }) =>
    processes
      .filter(([, p]) => p?.threadUsPerRequest !== undefined)
      .map(([process, p], i) => [i === 0 ? label : "", process, ...THREAD_ROLES.map((role) => us(p!.threadUsPerRequest![role])), us(p!.cpuUsPerRequest), ...collectorCells(p!.collector)]),
  );
  if (body.length === 0) return [];
  return [
    "by thread: each process's CPU µs per request split by what its threads do (loaded pass, the middle round): main = JavaScript, the HTTP server and the event loop; gc = the collector's helper threads; fetch = the fetch client's socket thread; worker = Workers (the gateway's embedded database); jit = the compilers (JavaScript and WebAssembly); then, from the collector's log in the same pass, its full and eden collections per 1,000 requests, the time it stopped the main thread per request (wall µs) and the KB the requests allocated each",
    ...table(["row", "process", ...THREAD_ROLES, "total", "full /1k", "eden /1k", "stopped µs", "alloc KB"], body, [1]),
  ];
}

export function formatMemory(m: MemorySection | undefined): string[] {
  if (!m) return [];
  const out = ["memory"];
  if (m.floor) {
    out.push(
      `  PGlite floor: a bare script opening the gateway's data dir holds ${mb(m.floor.openRssBytes)}, ${mb(m.floor.afterInsertsRssBytes)} after ${m.floor.inserts} small inserts (${m.floor.insertsMs.toFixed(0)} ms)`,
    );
  }
  // Without the memory section (`--sections paths`) only the peak under load was measured: no line of dashes for the rest.
  const idle = m.gatewayIdleRssBytes === undefined ? "" : `${mb(m.gatewayIdleRssBytes)} idle after start, `;
  // With the memory section alone no load ran: the line says so rather than showing a dash for the peak.
  const peak = m.gatewayPeakRssBytes === undefined ? "no peak under load (no load ran in this run)" : `${mb(m.gatewayPeakRssBytes)} peak under the bench's load`;
  out.push(`  gateway: ${idle}${peak} (target ${m.rss.target}${m.rssLimitBytes === undefined ? "" : `: ${mb(m.rssLimitBytes)}`}) ${mark(m.rss)}`);
  if (m.firstStartPeakBytes !== undefined) {
    out.push(`  first start from source on an empty data dir (${m.firstStartNote ?? "-"}): peak ${mb(m.firstStartPeakBytes)} (target ${m.firstStart.target}) ${mark(m.firstStart)}`);
  }
  return out;
}

export function formatCosts(costs: readonly CostRow[]): string[] {
  if (costs.length === 0) return [];
  const header = ["part", "what is timed", "CPU µs/call", "p50 µs", "p99 µs", "calls", "cells/call", "most allocated", "note"];
  const body = costs.map((c) => [
    c.part,
    c.label,
    us(c.meanUs, 2),
    us(c.p50Us, 2),
    us(c.p99Us, 2),
    String(c.calls),
    us(c.cells?.perCall),
    (c.cells?.byType ?? [])
      .slice(0, 3)
      .filter((t) => t.perCall >= 0.5)
      .map((t) => `${t.type} ${t.perCall.toFixed(0)}`)
      .join(", "),
    [c.targetP50Us === undefined || c.p50Us === undefined ? "" : `p50 target ≤ ${c.targetP50Us} µs ${c.p50Us <= c.targetP50Us ? "PASS" : "MISS"}`, c.note].filter((s) => s !== "").join(" · "),
  ]);
  return [
    "cost section: each part of a request called in-process on the bench config and the run's database and Redis; CPU µs/call = process CPU ÷ calls, p50/p99 = wall time per call (medians of rounds); cells/call = objects, strings, closures and arrays the call leaves on the heap for the collector, counted (not timed), so a busy machine does not move it",
    ...table(header, body, [1, 7, 8]),
  ];
}

export function formatBudget(rows: readonly BudgetRow[]): string[] {
  if (rows.length === 0) return [];
  const header = ["row", "gw beyond bare µs/req", "named parts µs", "rest µs", "parts (CPU µs)"];
  const body = rows.map((r) => [
    `${PATH_KIND_LABELS[r.kind]} · ${r.format}`,
    us(r.beyondBareUs),
    us(r.partsUs),
    us(r.restUs),
    r.parts.map((p) => `${p.part} ${p.meanUs.toFixed(1)}`).join(", "),
  ]);
  return ["budget: each path row's CPU beyond the bare proxy against the parts it goes through once; the rest is HTTP, fetch, glue and GC", ...table(header, body, [4])];
}

/** Functions listed a profiled pass; the rest are summed in one line. */
const PROFILE_FUNCTIONS = 16;

/** `--perf`: where each profiled pass's main-thread CPU went, by JavaScript function. */
export function formatProfiles(profiles: readonly PassProfile[] | undefined): string[] {
  if (!profiles || profiles.length === 0) return [];
  const body: string[][] = [];
  for (const { scenarioId, cpuUsPerRequest, attribution, error } of profiles) {
    if (!attribution || attribution.samples === 0) {
      body.push([scenarioId, "-", "-", error ?? "no samples"]);
      continue;
    }
    // A share of the process's samples, times the process's CPU per request in the same pass.
    const usOf = (samples: number): string => us(cpuUsPerRequest === undefined ? undefined : (samples / attribution.samples) * cpuUsPerRequest, 1);
    const pct = (samples: number): string => `${((100 * samples) / attribution.mainSamples).toFixed(1)} %`;
    const others = attribution.otherThreads.map((t) => `${t.name} ${usOf(t.samples)}`).join(", ");
    body.push([scenarioId, usOf(attribution.mainSamples), "100 %", `main thread, of ${us(cpuUsPerRequest)} µs/req in all (${attribution.samples} samples); other threads: ${others}`]);
    const listed = attribution.functions.slice(0, PROFILE_FUNCTIONS);
    for (const f of listed) body.push(["", usOf(f.samples), pct(f.samples), f.name]);
    const rest = attribution.functions.slice(PROFILE_FUNCTIONS).reduce((sum, f) => sum + f.samples, 0);
    if (rest > 0) body.push(["", usOf(rest), pct(rest), `${attribution.functions.length - listed.length} other functions`]);
  }
  return [
    "perf: the main thread of the gateway (and of the bare proxy, its floor) in each row's first pass (the loaded one; the big conversations' one-connection pass) of the run's middle round in time, each sample charged to the innermost JavaScript function on its stack with the native code it called (JSON, headers, fetch, the collector's work on the allocating thread); a function still interpreted counts toward its compiled caller; µs/req = share of the process's samples × its CPU per request",
    ...table(["row", "µs/req", "of main", "function"], body, [3]),
  ];
}

/** The soak minute by minute, and whether the gateway's memory stayed flat. */
export function formatSoak(soak: SoakSummary | undefined): string[] {
  if (!soak) return [];
  const body = soak.rows.map((r) => [String(r.minute), String(r.requests), String(r.errors), us(r.cpuUsPerRequest), mb(r.rssMedianBytes), mb(r.rssMaxBytes)]);
  const growth = soak.growth === undefined ? "-" : `${signed(soak.growth * 100, 1)} %`;
  const out = [
    `soak: ${soak.minutes} minute${soak.minutes === 1 ? "" : "s"} of the path rows' four requests in turn (${soak.passSec} s a pass, ${connectionsText(soak.connections)}), each request a new conversation; the gateway's RSS read every second`,
    ...table(["minute", "requests", "errors", "gw µs/req", "RSS median", "RSS max"], body),
    `  RSS: ${mb(soak.settledRssBytes)} in the minute after the fill, ${mb(soak.endRssBytes)} in the last (${growth}), peak ${mb(soak.peakRssBytes)} · flat: ${soak.flat.target} ${mark(soak.flat)}`,
  ];
  if (soak.firstError) out.push(`  ! first error: ${soak.firstError}`);
  return out;
}

/** This checkout's CPU per request ÷ the baseline's, round by round, for each scenario they both ran. */
export function formatBaselineRounds(rows: readonly BaselineRounds[]): string[] {
  if (rows.length === 0) return [];
  const rounds = Math.max(...rows.map((r) => r.ratios.length));
  const header = ["scenario", ...Array.from({ length: rounds }, (_, i) => `round ${i + 1}`), "median", "this one cost less"];
  const body = rows.map((r) => [
    r.scenarioId,
    ...Array.from({ length: rounds }, (_, i) => (r.ratios[i] === undefined ? "-" : r.ratios[i]!.toFixed(2))),
    r.median === undefined ? "-" : r.median.toFixed(2),
    `in ${r.ratios.filter((ratio) => ratio < 1).length} of ${r.ratios.length}`,
  ]);
  return ["against the baseline checkout: this checkout's CPU per request ÷ the baseline's in the same round (under 1: this one cost less)", ...table(header, body)];
}

/** The human report: one section per part of the run, then how many targets were met. */
export function formatReport(report: BenchReport): string {
  const sections = [
    formatPaths(report.paths, report.meta.connections),
    formatBodies(report.bodies),
    formatLongStreams(report.longStreams),
    formatBaselineRounds(report.baselineRounds ?? []),
    formatThreads(report.paths, report.longStreams),
    formatMemory(report.memory),
    formatCosts(report.costs ?? []),
    formatBudget(report.budget),
    formatProfiles(report.profiles),
    formatSoak(report.soak),
    ...(report.openStreams ?? []).map(formatOpenStreams),
  ].filter((lines) => lines.length > 0);
  const { met, judged } = report.summary;
  return [formatMeta(report.meta), ...sections.flatMap((lines) => ["", ...lines]), "", `targets met: ${met} of ${judged} judged`].join("\n");
}

export function printReport(report: BenchReport): void {
  console.log(formatReport(report));
}
