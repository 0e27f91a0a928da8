import { readFileSync } from "node:fs";
import type { ChildGroup } from "./child-group.ts";
import type { LoadResult } from "./load-result.ts";
import { parseProcStatCpuMs } from "./parse-proc-stat-cpu.ts";
import { readProcessMemory } from "./read-process-memory.ts";
import { runBuiltinLoad } from "./run-builtin-load.ts";
import { runWrk } from "./run-wrk.ts";
import type { Scenario } from "./scenarios.ts";

/** Each load pass of the soak: one scenario for this long, then the next. */
const SOAK_PASS_SEC = 15;
/** How often the gateway's RSS is read. */
const SAMPLE_EVERY_MS = 1_000;

/** The gateway's resident memory at one moment of the soak, seconds from its start. */
export interface SoakSample {
  readonly atSec: number;
  readonly rssBytes: number;
}

/** One load pass of the soak. */
export interface SoakPass {
  readonly scenarioId: string;
  /** When the pass started, seconds from the soak's start. */
  readonly startSec: number;
  readonly requests: number;
  readonly errors: number;
  readonly firstError?: string | undefined;
  /** The gateway's CPU over the pass (utime + stime, all threads), ms; undefined without procfs. */
  readonly cpuMs: number | undefined;
}

export interface SoakResult {
  /** Minutes asked for (`--soak`). */
  readonly minutes: number;
  readonly passSec: number;
  readonly connections: number;
  readonly samples: readonly SoakSample[];
  readonly passes: readonly SoakPass[];
}

export interface SoakOptions {
  readonly scenarios: readonly Scenario[];
  readonly minutes: number;
  readonly connections: number;
  readonly tool: "wrk" | "builtin";
  readonly scriptDir: string;
  readonly group: ChildGroup;
  readonly gatewayPid: number;
  /** Passes shorter than `SOAK_PASS_SEC` (tests). */
  readonly passSec?: number;
  /** Told of each minute as it begins. */
  readonly onMinute?: (minute: number) => void;
}

function processCpuMs(pid: number): number | undefined {
  try {
    return parseProcStatCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The soak: the scenarios in turn, a pass of `passSec` each under `connections`, until `minutes`
 * have gone by, the gateway's RSS read every second meanwhile. Every pass is kept, so the report
 * can say how the gateway's memory and CPU per request went from minute to minute.
 */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { scenarios, gatewayPid, group } = options;
  if (scenarios.length === 0) throw new Error("the soak needs at least one scenario");
  const passSec = options.passSec ?? SOAK_PASS_SEC;
  const started = performance.now();
  const elapsedSec = (): number => (performance.now() - started) / 1000;
  const samples: SoakSample[] = [];
  const sample = (): void => {
    const rss = readProcessMemory(gatewayPid)?.rssBytes;
    if (rss !== undefined) samples.push({ atSec: elapsedSec(), rssBytes: rss });
  };
  sample();
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const passes: SoakPass[] = [];
  let minute = 0;
  try {
    const endSec = options.minutes * 60;
    for (let i = 0; ; i++) {
      const startSec = elapsedSec();
      // wrk takes whole seconds; a pass shorter than one second is not worth its start.
      const durationSec = Math.min(passSec, Math.floor(endSec - startSec));
      if (durationSec < 1) break;
      if (Math.floor(startSec / 60) + 1 > minute) {
        minute = Math.floor(startSec / 60) + 1;
        options.onMinute?.(minute);
      }
      const scenario = scenarios[i % scenarios.length]!;
      const cpuBefore = processCpuMs(gatewayPid);
      const load: LoadResult =
        options.tool === "wrk"
          ? await runWrk(scenario, { connections: options.connections, durationSec, scriptDir: options.scriptDir, group })
          : await runBuiltinLoad(scenario, { connections: options.connections, durationSec });
      const cpuAfter = processCpuMs(gatewayPid);
      passes.push({
        scenarioId: scenario.id,
        startSec,
        requests: load.requests,
        errors: load.errors,
        ...(load.firstError === undefined ? {} : { firstError: load.firstError }),
        cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
      });
      // A gateway that crashed would turn the rest of the soak into connection errors.
      group.assertAlive();
    }
  } finally {
    clearInterval(sampler);
  }
  sample();
  return { minutes: options.minutes, passSec, connections: options.connections, samples, passes };
}
