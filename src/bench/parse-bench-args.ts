import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { FORMAT_NAMES, MODE_NAMES, TARGET_NAMES, type BenchFormat, type BenchMode, type BenchTarget } from "./scenarios.ts";

export const TOOL_NAMES = ["auto", "wrk", "builtin"] as const;
export type ToolChoice = (typeof TOOL_NAMES)[number];
export const COSTS_CHOICES = ["on", "off", "only"] as const;
export type CostsChoice = (typeof COSTS_CHOICES)[number];

export interface BenchArgs {
  readonly durationSec: number;
  /** Every scenario runs this many times, interleaved; the report takes medians. */
  readonly rounds: number;
  readonly connections: number;
  /** Seconds of the one-connection pass that measures added latency (0 = skip it). */
  readonly latencySec: number;
  readonly warmupRequests: number;
  readonly formats: readonly BenchFormat[];
  readonly modes: readonly BenchMode[];
  readonly targets: readonly BenchTarget[];
  readonly tool: ToolChoice;
  readonly json: boolean;
  readonly out: string | undefined;
  readonly databaseUrl: string | undefined;
  /**
   * Absolute path of another checkout of this project: its gateway runs beside this one and is
   * measured as the `baseline` target in the same rounds, so drift in machine speed hits both alike.
   */
  readonly baselineDir: string | undefined;
  /** Run the gateway with Bun's --cpu-prof, writing the profile into this directory on exit. */
  readonly cpuProfDir: string | undefined;
  /** The in-process cost section: before the load scenarios (on), not at all (off), or alone (only). */
  readonly costs: CostsChoice;
  /** Slow streams the open-streams row holds on the gateway at once (0 = no such row). */
  readonly streams: number;
  /** Only the open-streams row: no cost section, no load scenarios. */
  readonly streamsOnly: boolean;
  readonly help: boolean;
}

export const USAGE = `usage: bun run bench [options]
  --duration <s>          seconds per scenario and round (default 5)
  --rounds <n>            rounds over all scenarios; the report shows medians (default 3)
  --connections <n>       concurrent connections of the throughput pass (default 32)
  --latency <s>           seconds of the one-connection latency pass per scenario and round (default 2; 0 = off)
  --warmup <n>            unmeasured requests per scenario first (default 300)
  --formats <list>        ${FORMAT_NAMES.join(",")} (default all)
  --modes <list>          ${MODE_NAMES.join(",")} (default all)
  --targets <list>        ${TARGET_NAMES.join(",")} (default all; baseline only with --baseline)
  --tool <t>              wrk | builtin | auto (default auto: wrk when installed)
  --json                  also print the results as JSON at the end (or to --out)
  --out <file>            write the JSON results to this file
  --database-url <url>    run the gateway on this Postgres instead of a temp PGlite
  --baseline <dir>        also run another checkout's gateway (<dir>/src/main.ts) as target baseline, in the same rounds;
                          it joins the default targets (with --targets, list it); not with --database-url
  --cpu-prof <dir>        profile the gateway (bun --cpu-prof); the .cpuprofile lands in <dir> when the bench ends
  --costs <c>             on | off | only: time routing, limits + cache and the request observers in-process
                          first (default on; only = no processes, no load)
  --streams <n>           the open-streams row: hold n slow streams on the gateway at once, time new requests meanwhile,
                          report the gateway's memory and descriptors (default 10000; 0 = no row)
  --streams-only          only the open-streams row`;

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

function list<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): readonly T[] {
  if (raw === undefined) return allowed;
  const picked = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const item of picked) {
    if (!(allowed as readonly string[]).includes(item))
      throw new BenchArgsError(`--${name}: unknown "${item}" (one of ${allowed.join(", ")})`);
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

/** `baseline` needs its gateway; without --targets it joins the defaults exactly when that gateway runs. */
function targets(raw: string | undefined, hasBaseline: boolean): readonly BenchTarget[] {
  if (raw === undefined) return hasBaseline ? TARGET_NAMES : TARGET_NAMES.filter((target) => target !== "baseline");
  const picked = list("targets", raw, TARGET_NAMES);
  if (picked.includes("baseline") && !hasBaseline) throw new BenchArgsError("--targets: baseline needs --baseline <dir>");
  return picked;
}

/** What `read` returns; what it throws, as a BenchArgsError. */
function refuseAsBenchArgs<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new BenchArgsError(error instanceof Error ? error.message : String(error));
  }
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const { values } = refuseAsBenchArgs(() =>
    parseArgs({
      args: [...argv],
      strict: true,
      options: {
        duration: { type: "string", default: "5" },
        rounds: { type: "string", default: "3" },
        connections: { type: "string", default: "32" },
        latency: { type: "string", default: "2" },
        warmup: { type: "string", default: "300" },
        formats: { type: "string" },
        modes: { type: "string" },
        targets: { type: "string" },
        tool: { type: "string", default: "auto" },
        json: { type: "boolean", default: false },
        out: { type: "string" },
        "database-url": { type: "string" },
        baseline: { type: "string" },
        "cpu-prof": { type: "string" },
        costs: { type: "string", default: "on" },
        streams: { type: "string", default: "10000" },
        "streams-only": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }),
  );
  const tool = values.tool;
  if (!(TOOL_NAMES as readonly string[]).includes(tool))
    throw new BenchArgsError(`--tool: expected ${TOOL_NAMES.join(" | ")}, got "${tool}"`);
  const costs = values.costs;
  if (!(COSTS_CHOICES as readonly string[]).includes(costs))
    throw new BenchArgsError(`--costs: expected ${COSTS_CHOICES.join(" | ")}, got "${costs}"`);
  const baselineDir = values.baseline === undefined ? undefined : baselineCheckout(values.baseline);
  // Both gateways would migrate and write one database: usage, keys and logs mixed, and each slowed by the other's writes.
  if (baselineDir !== undefined && values["database-url"] !== undefined)
    throw new BenchArgsError("--baseline cannot be combined with --database-url: the two gateways would share one database");
  if (values["streams-only"] && values.streams === "0") throw new BenchArgsError("--streams-only needs --streams above 0");
  return {
    durationSec: positive("duration", values.duration, false),
    rounds: positive("rounds", values.rounds, true),
    connections: positive("connections", values.connections, true),
    latencySec: values.latency === "0" ? 0 : positive("latency", values.latency, false),
    warmupRequests: positive("warmup", values.warmup, true),
    formats: list("formats", values.formats, FORMAT_NAMES),
    modes: list("modes", values.modes, MODE_NAMES),
    targets: targets(values.targets, baselineDir !== undefined),
    tool: tool as ToolChoice,
    json: values.json || values.out !== undefined,
    out: values.out,
    databaseUrl: values["database-url"],
    baselineDir,
    cpuProfDir: values["cpu-prof"],
    costs: costs as CostsChoice,
    streams: values.streams === "0" ? 0 : positive("streams", values.streams, true),
    streamsOnly: values["streams-only"],
    help: values.help,
  };
}
