import {
  BODY_ADDED_P50_TARGETS_MS,
  BODY_SLOPE_TOLERANCE,
  CPU_RATIO_TARGETS,
  FIRST_START_LIMIT_BYTES,
  LONG_STREAM_US_PER_EVENT,
  P99_ALLOWANCE_MS,
  PGLITE_RSS_ALLOWANCE_BYTES,
  POSTGRES_RSS_LIMIT_BYTES,
  verdict,
  type PathKind,
  type Verdict,
} from "./bench-targets.ts";
import { CROSS_TIERS } from "./build-bench-config.ts";
import { compareWithBaseline, type BaselineRounds } from "./compare-with-baseline.ts";
import type { CostRow } from "./measure-module-costs.ts";
import type { BenchSection } from "./parse-bench-args.ts";
import type { PgliteFloor } from "./measure-pglite-floor.ts";
import { medianOfRounds } from "./median-of-rounds.ts";
import type { PassResult, ScenarioOutcome } from "./run-scenario.ts";
import type { OpenStreamsResult } from "./run-open-streams.ts";
import type { SoakResult } from "./run-soak.ts";
import type { PassProfile } from "./record-perf.ts";
import { summarizeSoak, type SoakSummary } from "./summarize-soak.ts";
import { BODY_CASES, type BenchFormat, type BenchMode, type BenchTarget, type Scenario, type ScenarioKind } from "./scenarios.ts";

export interface BenchMeta {
  readonly profile: "quick" | "full";
  readonly tool: "wrk" | "builtin";
  readonly database: "pglite" | "postgres";
  readonly redis: boolean;
  readonly connections: number;
  readonly durationSec: number;
  /** Each figure is the median of this many interleaved rounds. */
  readonly rounds: number;
  /** Seconds of the one-connection pass (0 = not run). */
  readonly latencySec: number;
  /** Seconds the gateways served the path rows before the first round (0 = not at all). */
  readonly settleSec: number;
  /** The parts of the run (`--sections`). */
  readonly sections: readonly BenchSection[];
  /** Minutes of the soak, when it ran. */
  readonly soakMinutes: number;
  readonly bunVersion: string;
  readonly nproc: number;
  readonly startedAt: string;
  /**
   * The share (0 to 1) of the machine's CPU time that programs other than the run (this process, its
   * children, the database and Redis servers) took while it ran; set once it has ended.
   */
  readonly otherCpuShare?: number | undefined;
  /** Wall time of the whole run, seconds (set once it has ended). */
  readonly elapsedSec?: number | undefined;
  /** The `baseline` target's checkout and what `--baseline-env` added to its environment, when it ran. */
  readonly baseline?: { readonly dir: string; readonly env: Readonly<Record<string, string>> } | undefined;
}

/** One process serving one scenario, its rounds folded. */
export interface TargetNumbers {
  readonly scenarioId: string;
  readonly load?: PassResult | undefined;
  readonly single?: PassResult | undefined;
}

/** A path row: one gateway target (same-format, translated, a cache hit, the baseline) against the bare proxy. */
export interface PathRow {
  readonly id: string;
  /** The row kind, or the extra rows that carry no target. */
  readonly kind: PathKind | "cached" | "baseline";
  readonly format: BenchFormat;
  readonly mode: BenchMode;
  /** The API the gateway called upstream. */
  readonly upstreamApi: BenchFormat;
  readonly gateway: TargetNumbers;
  readonly bare: TargetNumbers | undefined;
  readonly direct: TargetNumbers | undefined;
  /** Gateway CPU per request ÷ the bare proxy's, loaded pass. */
  readonly cpuRatio: number | undefined;
  readonly cpuBeyondBareUs: number | undefined;
  /** Only on the rows. */
  readonly verdicts: { readonly cpu: Verdict; readonly p99: Verdict; readonly rss: Verdict } | undefined;
}

export interface BodyRow {
  readonly caseId: string;
  readonly label: string;
  /** The gateway's request body, bytes. */
  readonly bytes: number;
  readonly direct: PassResult | undefined;
  readonly bare: PassResult | undefined;
  readonly gateway: PassResult | undefined;
  /** The baseline checkout's gateway, when it ran (`--baseline`). */
  readonly baseline: PassResult | undefined;
  /** Gateway p50 − direct p50, one connection, ms. */
  readonly addedP50Ms: number | undefined;
  /**
   * Bare proxy p50 − direct p50: what one more hop that only passes the body on adds, the floor
   * under the gateway's (0.20-0.39 ms at 100 KB and 0.8-1.7 ms at 1 MB over runs on one 2-core VM,
   * beside targets of 0.25 and 1.2 ms).
   */
  readonly bareAddedP50Ms: number | undefined;
  readonly cpuBeyondBareUs: number | undefined;
  /** Gateway CPU per request per KB of body above the small request's, µs/KB; undefined on the small row. */
  readonly slopeUsPerKb: number | undefined;
  readonly addedP50: Verdict | undefined;
  readonly slope: Verdict | undefined;
}

export interface LongStreamRow {
  /** `long-stream`: the events come in one burst (judged); `trickled-stream`: one at a time, a millisecond apart (shown). */
  readonly kind: Extract<ScenarioKind, "long-stream" | "trickled-stream">;
  readonly format: BenchFormat;
  readonly upstreamApi: BenchFormat;
  /** SSE events in the translated answer the client got. */
  readonly events: number | undefined;
  readonly bare: PassResult | undefined;
  readonly cross: PassResult | undefined;
  readonly gateway: PassResult | undefined;
  /** (translated CPU per request − bare's) ÷ events, µs. */
  readonly crossUsPerEvent: number | undefined;
  /** The same for the same-format path, when it ran. */
  readonly sameUsPerEvent: number | undefined;
  /** The baseline checkout's gateway on the translated path, when it ran (`--baseline`). */
  readonly baseline: PassResult | undefined;
  readonly baselineUsPerEvent: number | undefined;
  readonly verdict: Verdict;
}

/** What the memory section measured, before the report judges it. */
export interface MemoryInputs {
  readonly floor?: PgliteFloor | undefined;
  /** VmHWM of a gateway started from source on an empty data directory, until it listened. */
  readonly firstStartPeakBytes?: number | undefined;
  /** Where that start ran: the bench's own gateway, or one started for it alone (on Postgres runs). */
  readonly firstStartNote?: string | undefined;
  /** The gateway's RSS once started, before any load. */
  readonly gatewayIdleRssBytes?: number | undefined;
}

export interface MemorySection extends MemoryInputs {
  /** The gateway's highest RSS over the path rows. */
  readonly gatewayPeakRssBytes: number | undefined;
  /** The RSS limit under load this run is judged against, bytes (undefined: PGlite without its floor). */
  readonly rssLimitBytes: number | undefined;
  readonly rss: Verdict;
  readonly firstStart: Verdict;
}

/**
 * A path row's CPU beyond the bare proxy set against the parts the cost section timed for that
 * path: what the named parts explain, and the rest (Bun's HTTP server and fetch beyond the bare
 * proxy's use of them, the pipeline's own glue, garbage collection).
 */
export interface BudgetRow {
  readonly rowId: string;
  readonly kind: PathKind;
  readonly format: BenchFormat;
  readonly parts: ReadonlyArray<{ readonly id: string; readonly part: string; readonly meanUs: number }>;
  readonly partsUs: number;
  readonly beyondBareUs: number | undefined;
  readonly restUs: number | undefined;
}

export interface BenchReport {
  readonly meta: BenchMeta;
  readonly paths: readonly PathRow[];
  readonly bodies: readonly BodyRow[];
  readonly longStreams: readonly LongStreamRow[];
  readonly memory: MemorySection | undefined;
  readonly costs: readonly CostRow[] | undefined;
  readonly budget: readonly BudgetRow[];
  readonly soak: SoakSummary | undefined;
  readonly openStreams: readonly OpenStreamsResult[] | undefined;
  /** `--perf`: the first pass of each of the gateway's and the bare proxy's scenarios in the middle round, sampled. */
  readonly profiles?: readonly PassProfile[] | undefined;
  /** `--baseline`: each scenario the baseline checkout ran, this checkout's CPU beside it round by round. */
  readonly baselineRounds?: readonly BaselineRounds[] | undefined;
  /** Verdicts met, and judged (a verdict that could not be judged counts in neither). */
  readonly summary: { readonly met: number; readonly judged: number };
}

export interface BenchInputs {
  readonly meta: BenchMeta;
  /** Every scenario and its rounds, in run order. */
  readonly measured: ReadonlyArray<{ readonly scenario: Scenario; readonly rounds: readonly ScenarioOutcome[] }>;
  /** SSE events counted in one answer of each long-stream scenario, by scenario id. */
  readonly longStreamEvents?: Readonly<Record<string, number>> | undefined;
  readonly memory?: MemoryInputs | undefined;
  readonly costs?: readonly CostRow[] | undefined;
  readonly soak?: SoakResult | undefined;
  readonly openStreams?: readonly OpenStreamsResult[] | undefined;
  readonly profiles?: readonly PassProfile[] | undefined;
}

const KB = 1024;

const beyond = (bare: number | undefined, gateway: number | undefined): number | undefined =>
  bare === undefined || gateway === undefined ? undefined : gateway - bare;

/** A row with an error anywhere passes nothing: a fast error is not a pass. */
const clean = (...passes: ReadonlyArray<PassResult | undefined>): boolean => passes.every((p) => p === undefined || p.errors === 0);

function pathKind(target: BenchTarget, mode: BenchMode): PathRow["kind"] | undefined {
  if (target === "gateway") return mode === "json" ? "same-json" : "same-stream";
  if (target === "cross") return mode === "json" ? "translated-json" : "translated-stream";
  if (target === "cached" || target === "baseline") return target;
  return undefined;
}

function judgePath(kind: PathKind, gateway: TargetNumbers, bare: TargetNumbers | undefined, rssLimit: number | undefined): NonNullable<PathRow["verdicts"]> {
  const ratioTarget = CPU_RATIO_TARGETS[kind];
  const allowance = P99_ALLOWANCE_MS[kind];
  const g = gateway.load;
  const b = bare?.load;
  const ok = clean(g, b, gateway.single, bare?.single);
  const ratio = g?.cpuUsPerRequest !== undefined && b?.cpuUsPerRequest !== undefined ? g.cpuUsPerRequest / b.cpuUsPerRequest : undefined;
  const peak = g?.peakRssBytes;
  return {
    cpu: verdict(`≤ ${ratioTarget.toFixed(1)}×`, ratio === undefined ? undefined : ok && ratio <= ratioTarget),
    p99: verdict(`≤ bare + ${allowance} ms`, g === undefined || b === undefined ? undefined : ok && g.p99Ms <= b.p99Ms + allowance),
    rss: verdict(rssLimit === undefined ? "≤ floor + 100 MB" : `≤ ${Math.round(rssLimit / (KB * KB))} MB`, rssLimit === undefined || peak === undefined ? undefined : peak <= rssLimit),
  };
}

function buildPaths(folded: ReadonlyMap<string, { scenario: Scenario; outcome: ScenarioOutcome }>, rssLimit: number | undefined): PathRow[] {
  const rows: PathRow[] = [];
  const numbers = (id: string): TargetNumbers | undefined => {
    const entry = folded.get(id);
    return entry ? { scenarioId: id, load: entry.outcome.load, single: entry.outcome.single } : undefined;
  };
  for (const { scenario } of folded.values()) {
    if (scenario.kind !== "path") continue;
    const kind = pathKind(scenario.target, scenario.mode);
    if (kind === undefined) continue;
    const { format, mode } = scenario;
    const gateway = numbers(scenario.id)!;
    const bare = numbers(`${format}/${mode}/bare`);
    const direct = numbers(`${format}/${mode}/direct`);
    const g = gateway.load?.cpuUsPerRequest;
    const b = bare?.load?.cpuUsPerRequest;
    rows.push({
      id: scenario.id,
      kind,
      format,
      mode,
      upstreamApi: scenario.target === "cross" ? CROSS_TIERS[format].api : format,
      gateway,
      bare,
      direct,
      cpuRatio: g !== undefined && b !== undefined ? g / b : undefined,
      cpuBeyondBareUs: beyond(b, g),
      verdicts: kind === "cached" || kind === "baseline" ? undefined : judgePath(kind, gateway, bare, rssLimit),
    });
  }
  // The order: same-format JSON, same-format stream, translated JSON, translated stream, then the extras.
  const order: readonly PathRow["kind"][] = ["same-json", "same-stream", "translated-json", "translated-stream", "cached", "baseline"];
  return rows.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
}

function buildBodies(folded: ReadonlyMap<string, { scenario: Scenario; outcome: ScenarioOutcome }>): BodyRow[] {
  const single = (caseId: string, target: BenchTarget): PassResult | undefined => folded.get(`body/${caseId}/${target}`)?.outcome.single;
  const present = BODY_CASES.filter((c) => folded.has(`body/${c.id}/gateway`));
  const bytesOf = (caseId: string): number => Buffer.byteLength(folded.get(`body/${caseId}/gateway`)!.scenario.body);
  const small = present.find((c) => c.targetBytes === 0);
  const cpuOf = (caseId: string): number | undefined => single(caseId, "gateway")?.cpuUsPerRequest;
  const slopeBetween = (from: string, to: string): number | undefined => {
    const a = cpuOf(from);
    const b = cpuOf(to);
    return a === undefined || b === undefined ? undefined : (b - a) / ((bytesOf(to) - bytesOf(from)) / KB);
  };
  return present.map((c) => {
    const direct = single(c.id, "direct");
    const bare = single(c.id, "bare");
    const gateway = single(c.id, "gateway");
    const addedP50Ms = direct && gateway ? gateway.p50Ms - direct.p50Ms : undefined;
    const bareAddedP50Ms = direct && bare ? bare.p50Ms - direct.p50Ms : undefined;
    const target = BODY_ADDED_P50_TARGETS_MS[c.id];
    const slopeUsPerKb = small && c.id !== small.id ? slopeBetween(small.id, c.id) : undefined;
    // The 1 MB text body: the slope beyond 100 KB against the slope up to it.
    const linear =
      c.id === "1m" && small && present.some((p) => p.id === "100k")
        ? (() => {
            const first = slopeBetween(small.id, "100k");
            const second = slopeBetween("100k", "1m");
            return verdict(`100 KB→1 MB slope ≤ ${BODY_SLOPE_TOLERANCE}× the slope up to 100 KB`, first === undefined || second === undefined ? undefined : second <= first * BODY_SLOPE_TOLERANCE);
          })()
        : undefined;
    return {
      caseId: c.id,
      label: c.label,
      bytes: bytesOf(c.id),
      direct,
      bare,
      gateway,
      baseline: single(c.id, "baseline"),
      addedP50Ms,
      bareAddedP50Ms,
      cpuBeyondBareUs: beyond(bare?.cpuUsPerRequest, gateway?.cpuUsPerRequest),
      slopeUsPerKb,
      addedP50: target === undefined ? undefined : verdict(`≤ ${target} ms`, addedP50Ms === undefined ? undefined : clean(direct, gateway) && addedP50Ms <= target),
      slope: linear,
    };
  });
}

function buildLongStreams(
  folded: ReadonlyMap<string, { scenario: Scenario; outcome: ScenarioOutcome }>,
  events: Readonly<Record<string, number>>,
): LongStreamRow[] {
  return (["long-stream", "trickled-stream"] as const).flatMap((kind) => buildLongStreamRows(folded, events, kind));
}

/** The rows of one pacing: the burst is judged against the target, the trickle (which the issue does not name) only shown. */
function buildLongStreamRows(
  folded: ReadonlyMap<string, { scenario: Scenario; outcome: ScenarioOutcome }>,
  events: Readonly<Record<string, number>>,
  kind: LongStreamRow["kind"],
): LongStreamRow[] {
  const formats = [...new Set([...folded.values()].filter((e) => e.scenario.kind === kind).map((e) => e.scenario.format))];
  return formats.map((format) => {
    const load = (target: BenchTarget): PassResult | undefined => folded.get(`${kind}/${format}/${target}`)?.outcome.load;
    const bare = load("bare");
    const cross = load("cross");
    const gateway = load("gateway");
    const count = events[`${kind}/${format}/cross`];
    const perEvent = (row: PassResult | undefined, n: number | undefined): number | undefined => {
      const extra = beyond(bare?.cpuUsPerRequest, row?.cpuUsPerRequest);
      return extra === undefined || n === undefined || n === 0 ? undefined : extra / n;
    };
    const crossUsPerEvent = perEvent(cross, count);
    const judged = kind === "long-stream";
    return {
      kind,
      format,
      upstreamApi: CROSS_TIERS[format].api,
      events: count,
      bare,
      cross,
      gateway,
      crossUsPerEvent,
      sameUsPerEvent: perEvent(gateway, events[`${kind}/${format}/gateway`]),
      baseline: load("baseline"),
      baselineUsPerEvent: perEvent(load("baseline"), events[`${kind}/${format}/baseline`]),
      verdict: judged
        ? verdict(`≤ ${LONG_STREAM_US_PER_EVENT} µs/event`, crossUsPerEvent === undefined ? undefined : clean(bare, cross) && crossUsPerEvent <= LONG_STREAM_US_PER_EVENT)
        : verdict("-", undefined),
    };
  });
}

/** The limit on the gateway's RSS under load: absolute on Postgres, above the measured floor on PGlite. */
export function rssLimitOf(database: BenchMeta["database"], floor: PgliteFloor | undefined): number | undefined {
  if (database === "postgres") return POSTGRES_RSS_LIMIT_BYTES;
  return floor === undefined ? undefined : floor.afterInsertsRssBytes + PGLITE_RSS_ALLOWANCE_BYTES;
}

function buildMemory(meta: BenchMeta, memory: MemoryInputs | undefined, paths: readonly PathRow[], rssLimit: number | undefined): MemorySection | undefined {
  const peaks = paths.filter((p) => p.kind !== "baseline").flatMap((p) => [p.gateway.load?.peakRssBytes, p.gateway.single?.peakRssBytes]).filter((v): v is number => v !== undefined);
  const gatewayPeakRssBytes = peaks.length > 0 ? Math.max(...peaks) : undefined;
  if (!memory && gatewayPeakRssBytes === undefined) return undefined;
  const rssTarget = meta.database === "postgres" ? `≤ ${POSTGRES_RSS_LIMIT_BYTES / (KB * KB)} MB` : `≤ floor + ${PGLITE_RSS_ALLOWANCE_BYTES / (KB * KB)} MB`;
  const first = memory?.firstStartPeakBytes;
  return {
    ...memory,
    gatewayPeakRssBytes,
    rssLimitBytes: rssLimit,
    rss: verdict(rssTarget, rssLimit === undefined || gatewayPeakRssBytes === undefined ? undefined : gatewayPeakRssBytes <= rssLimit),
    firstStart: verdict(`≤ ${FIRST_START_LIMIT_BYTES / (KB * KB)} MB`, first === undefined ? undefined : first <= FIRST_START_LIMIT_BYTES),
  };
}

/** The cost rows each path's request goes through once. */
const SHARED_PARTS = ["auth", "limits", "usage-row", "request-log", "metrics"] as const;
const ANSWER_PART: Readonly<Record<PathKind, string>> = {
  "same-json": "same-format-json",
  "same-stream": "same-format-stream",
  "translated-json": "translation-json",
  "translated-stream": "translation-stream",
};

function buildBudget(paths: readonly PathRow[], costs: readonly CostRow[] | undefined): BudgetRow[] {
  if (!costs || costs.length === 0) return [];
  const byId = new Map(costs.map((c) => [c.id, c]));
  const rows: BudgetRow[] = [];
  for (const path of paths) {
    if (path.kind === "cached" || path.kind === "baseline") continue;
    const ids = [...SHARED_PARTS, `body-check/${path.format}`, `routing/${path.format}`, `cache/${path.format}`, `${ANSWER_PART[path.kind]}/${path.format}`];
    const parts = ids.flatMap((id) => {
      // A part timed under the path rows' load as well is counted as they make it.
      const row = byId.get(`${id}/loaded`) ?? byId.get(id);
      return row ? [{ id: row.id, part: row.part, meanUs: row.meanUs }] : [];
    });
    // Only a budget of every part: a missing one would make the rest look bigger than it is.
    if (parts.length !== ids.length) continue;
    const partsUs = parts.reduce((sum, p) => sum + p.meanUs, 0);
    rows.push({
      rowId: path.id,
      kind: path.kind,
      format: path.format,
      parts,
      partsUs,
      beyondBareUs: path.cpuBeyondBareUs,
      restUs: path.cpuBeyondBareUs === undefined ? undefined : path.cpuBeyondBareUs - partsUs,
    });
  }
  return rows;
}

function summarise(report: Omit<BenchReport, "summary">): BenchReport["summary"] {
  const verdicts: Verdict[] = [
    ...report.paths.flatMap((p) => (p.verdicts ? [p.verdicts.cpu, p.verdicts.p99, p.verdicts.rss] : [])),
    ...report.bodies.flatMap((b) => [b.addedP50, b.slope].filter((v): v is Verdict => v !== undefined)),
    ...report.longStreams.map((l) => l.verdict),
    // The RSS limit is judged on each path row; the first start once.
    ...(report.memory ? [report.memory.firstStart] : []),
    ...(report.soak ? [report.soak.flat] : []),
  ];
  const judged = verdicts.filter((v) => v.pass !== undefined);
  return { met: judged.filter((v) => v.pass === true).length, judged: judged.length };
}

/** Folds each scenario's rounds (medians), builds the report's sections and judges them against the targets. */
export function buildReport(inputs: BenchInputs): BenchReport {
  const folded = new Map<string, { scenario: Scenario; outcome: ScenarioOutcome }>();
  for (const { scenario, rounds } of inputs.measured) {
    if (rounds.length > 0) folded.set(scenario.id, { scenario, outcome: medianOfRounds(rounds) });
  }
  const rssLimit = rssLimitOf(inputs.meta.database, inputs.memory?.floor);
  const paths = buildPaths(folded, rssLimit);
  const report = {
    meta: inputs.meta,
    paths,
    bodies: buildBodies(folded),
    longStreams: buildLongStreams(folded, inputs.longStreamEvents ?? {}),
    memory: buildMemory(inputs.meta, inputs.memory, paths, rssLimit),
    costs: inputs.costs,
    budget: buildBudget(paths, inputs.costs),
    soak: inputs.soak ? summarizeSoak(inputs.soak) : undefined,
    openStreams: inputs.openStreams,
    profiles: inputs.profiles,
    baselineRounds: inputs.meta.baseline ? compareWithBaseline(inputs.measured) : undefined,
  };
  return { ...report, summary: summarise(report) };
}
