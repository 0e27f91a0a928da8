import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { FORMAT_NAMES, MODE_NAMES, TARGET_NAMES, type BenchFormat, type BenchMode, type BenchTarget } from "./scenarios.ts";

export const TOOL_NAMES = ["auto", "wrk", "builtin"] as const;
export type ToolChoice = (typeof TOOL_NAMES)[number];

/**
 * The parts of a run, in the order they run. `paths`: the issue's four rows (same-format and
 * translated, JSON and stream) against the bare proxy; `bodies`: big conversations; `long-stream`:
 * a 2,000-event answer; `memory`: the PGlite floor and the first start's peak; `costs`: the
 * gateway's parts timed in-process; `soak`: minutes of new conversations, the gateway's memory
 * read every second; `open-streams`: thousands of slow streams held at once.
 */
const SECTION_NAMES = ["paths", "bodies", "long-stream", "memory", "costs", "soak", "open-streams"] as const;
export type BenchSection = (typeof SECTION_NAMES)[number];

export interface BenchArgs {
  /** The long form (`--full`): every format, longer passes, the open-streams row. */
  readonly full: boolean;
  readonly sections: readonly BenchSection[];
  readonly durationSec: number;
  /** Every scenario runs this many times, interleaved; the report takes medians. */
  readonly rounds: number;
  readonly connections: number;
  /** Seconds of the one-connection pass (p50/p99 without queueing; 0 = skip it). */
  readonly latencySec: number;
  readonly warmupRequests: number;
  /**
   * Seconds of load on the gateways' path rows, in turn, before the first round (0 = none): the
   * rounds then measure code compiled as in an instance that has served for a while, not the
   * compilers' first minute, which a long-running gateway pays once.
   */
  readonly settleSec: number;
  readonly formats: readonly BenchFormat[];
  readonly modes: readonly BenchMode[];
  readonly targets: readonly BenchTarget[];
  readonly tool: ToolChoice;
  readonly json: boolean;
  readonly out: string | undefined;
  /** The production profile: the gateway on this Postgres instead of a temp PGlite… */
  readonly databaseUrl: string | undefined;
  /** …and on this Redis (limits, cache L2, pins) instead of its in-process fallbacks. */
  readonly redisUrl: string | undefined;
  /**
   * Absolute path of another checkout of this project: its gateway runs beside this one and is
   * measured as the `baseline` target in the same rounds, so drift in machine speed hits both alike.
   */
  readonly baselineDir: string | undefined;
  /**
   * Variables added to the baseline gateway's environment only (`--baseline-env KEY=VALUE`, repeatable):
   * with `--baseline .` the same code runs under two settings in the same rounds.
   */
  readonly baselineEnv: Readonly<Record<string, string>>;
  /** Run the gateway with Bun's --cpu-prof, writing the profile into this directory on exit. */
  readonly cpuProfDir: string | undefined;
  /** Sample the gateway and the bare proxy with perf in the middle round's first passes, the recordings and JIT code maps kept in this directory. */
  readonly perfDir: string | undefined;
  /** Slow streams the open-streams row holds on the gateway at once. */
  readonly streams: number;
  /** Minutes of the soak. */
  readonly soakMinutes: number;
  readonly help: boolean;
}

/** What `--full` changes; every value can still be set by its own flag. */
export const PROFILES = {
  quick: { durationSec: 2, latencySec: 1, rounds: 3, warmupRequests: 200, settleSec: 10, formats: ["messages"] as readonly BenchFormat[] },
  full: { durationSec: 5, latencySec: 2, rounds: 3, warmupRequests: 300, settleSec: 30, formats: FORMAT_NAMES as readonly BenchFormat[] },
} as const;

/** The quick form leaves out the two that take minutes of their own. */
const QUICK_SECTIONS: readonly BenchSection[] = SECTION_NAMES.filter((s) => s !== "soak" && s !== "open-streams");

export const USAGE = `usage: bun run bench [options]
  (no flags)              the quick form, under 3 minutes on 2 cores: Messages clients, same-format and translated,
                          JSON and stream; big conversations; a 2,000-event stream; memory; the cost section
  --full                  the long form (over 20 minutes): every format, 5 s + 2 s passes, the soak and the open-streams row
  --sections <list>       ${SECTION_NAMES.join(",")} (default all but soak and open-streams; --full: all)
  --database-url <url>    the production profile: the gateway on this Postgres server (a database of the run's own,
                          created and dropped, so the role needs CREATEDB) instead of a temp PGlite
  --redis-url <url>       … and on this Redis (limits, response cache L2, pins) instead of in-process fallbacks
  --duration <s>          seconds of the loaded pass (--connections) per scenario and round (default 2; --full 5)
  --latency <s>           seconds of the one-connection pass per scenario and round (default 1; --full 2; 0 = off,
                          which leaves the big conversations nothing to measure: list --sections without bodies)
  --rounds <n>            interleaved rounds; the report shows medians (default 3)
  --connections <n>       connections of the loaded pass (default 32)
  --warmup <n>            unmeasured requests per scenario first (default 200; --full 300)
  --settle <s>            seconds of load on the gateways' path rows, in turn, before the first round, so the rounds
                          find the gateway's code compiled as a running instance has it (default 10; --full 30; 0 = none);
                          the compilers take 30-40 s of mixed traffic to settle, more than the quick form can spend
  --formats <list>        client formats of the path rows: ${FORMAT_NAMES.join(",")} (default messages; --full all)
  --modes <list>          ${MODE_NAMES.join(",")} (default all)
  --targets <list>        ${TARGET_NAMES.join(",")} (default bare,gateway,cross; --full adds direct,cached; baseline with --baseline)
  --tool <t>              wrk | builtin | auto (default auto: wrk when installed)
  --json                  also print the report as JSON at the end (or to --out)
  --out <file>            write the JSON report to this file
  --baseline <dir>        also run another checkout's gateway (<dir>/src/main.ts) as target baseline, in the same rounds
                          (with --database-url, on a database of its own on that server); the report gives this
                          checkout's CPU per request ÷ the baseline's in each round
  --baseline-env <K=V>    set K=V in the baseline gateway's environment only (repeatable): with --baseline . the same
                          code under two settings, e.g. --baseline-env MIMALLOC_PURGE_DELAY=100
  --cpu-prof <dir>        profile the gateway (bun --cpu-prof); the .cpuprofile lands in <dir> when it stops
  --perf <dir>            sample the gateway and the bare proxy with perf (Linux, perf on PATH) in each row's first pass
                          of the middle round, and report where their main threads' CPU goes by JavaScript function;
                          the recordings stay in <dir>
  --streams <n>           slow streams the open-streams row holds at once (default 10000)
  --soak-minutes <m>      length of the soak: new conversations on the gateway, its RSS read every second (default 10)`;

/** A bad command line; the CLI prints the message and the usage. */
export class BenchArgsError extends Error {
  override readonly name = "BenchArgsError";
}

function positive(name: string, raw: string, integer: boolean): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new BenchArgsError(`--${name}: expected a positive ${integer ? "integer" : "number"}, got "${raw}"`);
  }
  return value;
}

function list<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], fallback: readonly T[]): readonly T[] {
  if (raw === undefined) return fallback;
  const picked = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const item of picked) {
    if (!(allowed as readonly string[]).includes(item)) throw new BenchArgsError(`--${name}: unknown "${item}" (one of ${allowed.join(", ")})`);
  }
  if (picked.length === 0) throw new BenchArgsError(`--${name}: empty list`);
  // Keep the table's order whatever order was typed, so reports always read the same way.
  return allowed.filter((item) => picked.includes(item));
}

/** The checkout must hold the gateway's entry point; checked now rather than after the sim and gateway started. */
function baselineCheckout(raw: string): string {
  const dir = resolve(raw);
  if (!existsSync(join(dir, "src", "main.ts"))) throw new BenchArgsError(`--baseline: no src/main.ts in "${dir}" (expected a checkout of this project)`);
  return dir;
}

function environment(raw: readonly string[] | undefined, hasBaseline: boolean): Record<string, string> {
  const env: Record<string, string> = {};
  if (raw === undefined) return env;
  if (!hasBaseline) throw new BenchArgsError("--baseline-env: needs --baseline <dir>");
  for (const pair of raw) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new BenchArgsError(`--baseline-env: expected KEY=VALUE, got "${pair}"`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

function targets(raw: string | undefined, full: boolean, hasBaseline: boolean): readonly BenchTarget[] {
  const base: readonly BenchTarget[] = full ? ["direct", "bare", "gateway", "cross", "cached"] : ["bare", "gateway", "cross"];
  const fallback = hasBaseline ? TARGET_NAMES.filter((t) => base.includes(t) || t === "baseline") : base;
  const picked = list("targets", raw, TARGET_NAMES, fallback);
  if (picked.includes("baseline") && !hasBaseline) throw new BenchArgsError("--targets: baseline needs --baseline <dir>");
  return picked;
}

function url(name: string, raw: string | undefined, protocols: readonly string[]): string | undefined {
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw) || !protocols.includes(new URL(raw).protocol))
    throw new BenchArgsError(`--${name}: expected a ${protocols.map((p) => `${p}//`).join(" or ")} URL, got "${raw}"`);
  return raw;
}

const OPTIONS = {
  full: { type: "boolean", default: false },
  sections: { type: "string" },
  duration: { type: "string" },
  rounds: { type: "string" },
  connections: { type: "string", default: "32" },
  latency: { type: "string" },
  warmup: { type: "string" },
  settle: { type: "string" },
  formats: { type: "string" },
  modes: { type: "string" },
  targets: { type: "string" },
  tool: { type: "string", default: "auto" },
  json: { type: "boolean", default: false },
  out: { type: "string" },
  "database-url": { type: "string" },
  "redis-url": { type: "string" },
  baseline: { type: "string" },
  "baseline-env": { type: "string", multiple: true },
  "cpu-prof": { type: "string" },
  perf: { type: "string" },
  streams: { type: "string", default: "10000" },
  "soak-minutes": { type: "string", default: "10" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** node:util's parse, its errors as the bench's own. */
function readOptions(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], strict: true, options: OPTIONS }).values;
  } catch (error) {
    throw new BenchArgsError(error instanceof Error ? error.message : String(error));
  }
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const values = readOptions(argv);
  const tool = values.tool;
  if (!(TOOL_NAMES as readonly string[]).includes(tool)) throw new BenchArgsError(`--tool: expected ${TOOL_NAMES.join(" | ")}, got "${tool}"`);
  const full = values.full;
  const profile = full ? PROFILES.full : PROFILES.quick;
  const baselineDir = values.baseline === undefined ? undefined : baselineCheckout(values.baseline);
  const sections = list("sections", values.sections, SECTION_NAMES, full ? SECTION_NAMES : QUICK_SECTIONS);
  const latencySec = values.latency === undefined ? profile.latencySec : values.latency === "0" ? 0 : positive("latency", values.latency, true);
  // The big conversations are measured by the one-connection pass alone: without it they would
  // start the load generator for no time at all (wrk refuses -d0s) after minutes of setup.
  if (latencySec === 0 && sections.includes("bodies")) {
    throw new BenchArgsError("--latency 0: the big conversations (bodies) are measured only by the one-connection pass; leave them out with --sections, or give the pass a length");
  }
  return {
    full,
    sections,
    durationSec: values.duration === undefined ? profile.durationSec : positive("duration", values.duration, true),
    rounds: values.rounds === undefined ? profile.rounds : positive("rounds", values.rounds, true),
    connections: positive("connections", values.connections, true),
    latencySec,
    warmupRequests: values.warmup === undefined ? profile.warmupRequests : positive("warmup", values.warmup, true),
    settleSec: values.settle === undefined ? profile.settleSec : values.settle === "0" ? 0 : positive("settle", values.settle, true),
    formats: list("formats", values.formats, FORMAT_NAMES, profile.formats),
    modes: list("modes", values.modes, MODE_NAMES, MODE_NAMES),
    targets: targets(values.targets, full, baselineDir !== undefined),
    tool: tool as ToolChoice,
    json: values.json || values.out !== undefined,
    out: values.out,
    databaseUrl: url("database-url", values["database-url"], ["postgres:", "postgresql:"]),
    redisUrl: url("redis-url", values["redis-url"], ["redis:", "rediss:"]),
    baselineDir,
    baselineEnv: environment(values["baseline-env"], baselineDir !== undefined),
    cpuProfDir: values["cpu-prof"] === undefined ? undefined : resolve(values["cpu-prof"]),
    perfDir: values.perf === undefined ? undefined : resolve(values.perf),
    streams: positive("streams", values.streams, true),
    soakMinutes: positive("soak-minutes", values["soak-minutes"], true),
    help: values.help,
  };
}
