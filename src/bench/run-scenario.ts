import type { ChildGroup } from "./child-group.ts";
import type { LoadResult } from "./load-result.ts";
import { busiestBetween, type HeapCounts } from "./read-collector-log.ts";
import { perRequestUs, readThreadSnapshot, threadCpuBetween, type ThreadCpu } from "./read-thread-cpu.ts";
import { startPeakProbe } from "./read-process-memory.ts";
import { runBuiltinLoad } from "./run-builtin-load.ts";
import { runWrk } from "./run-wrk.ts";
import type { Pass, Scenario } from "./scenarios.ts";

export interface RunScenarioOptions {
  readonly tool: "wrk" | "builtin";
  readonly connections: number;
  readonly durationSec: number;
  readonly latencySec: number;
  readonly scriptDir: string;
  readonly group: ChildGroup;
  /** The process serving the target: its CPU per request and peak memory are reported beside the load numbers. */
  readonly serverPid: number;
  /**
   * Started just before the scenario's first pass, the one its CPU per request is read from (the
   * loaded pass; the big conversations' one-connection pass): a profiler, say. What it returns is
   * awaited once the pass has been read.
   */
  readonly aroundFirstPass?: ((scenario: Scenario) => (() => Promise<void>) | undefined) | undefined;
  /** The serving process's collections so far, by heap, where its collector log is read. */
  readonly collector?: (() => HeapCounts) | undefined;
}

/** What the serving process's collector did in a pass, per request. */
export interface CollectorUse {
  readonly fullPer1k: number;
  readonly edenPer1k: number;
  /** The main thread's stops for the collector, wall time. */
  readonly stoppedUsPerRequest: number;
  /** What the cycles that ended in the pass allocated (see CollectorCount): how fast requests make garbage. */
  readonly allocatedKbPerRequest: number;
}

/** The main heap's collector work between two looks (see busiestBetween), per request of the pass. */
function collectorUse(before: HeapCounts, after: HeapCounts, requests: number): CollectorUse | undefined {
  const used = busiestBetween(before, after);
  if (used === undefined) return undefined;
  return {
    fullPer1k: (used.full * 1000) / requests,
    edenPer1k: (used.eden * 1000) / requests,
    stoppedUsPerRequest: (used.stoppedMs * 1000) / requests,
    allocatedKbPerRequest: used.allocatedBytes / 1024 / requests,
  };
}

/** One pass of one scenario: the load tool's numbers, the server's CPU per request and its peak RSS. */
export interface PassResult extends LoadResult {
  /** Server CPU µs (utime + stime, all its threads) per completed request; undefined without procfs. */
  readonly cpuUsPerRequest: number | undefined;
  /** The same split by what the server's threads do (they add up to `cpuUsPerRequest`, within procfs's 10 ms ticks); undefined without procfs. */
  readonly threadUsPerRequest?: ThreadCpu | undefined;
  /** The server's highest RSS during the pass, bytes; undefined without procfs. */
  readonly peakRssBytes: number | undefined;
  /** Undefined where the server's collector log is not read. */
  readonly collector?: CollectorUse | undefined;
}

export type ScenarioOutcome = Partial<Record<Pass, PassResult>>;

/**
 * Warms the target up (JIT, connection pools, the gateway's key cache) with unmeasured requests,
 * then runs each of the scenario's passes: under load (`--connections` at once), then one request
 * at a time (latency without queueing). A warm-up where every request failed stops here: measuring
 * a broken scenario would report a fast error path.
 */
export async function runScenario(scenario: Scenario, options: RunScenarioOptions): Promise<ScenarioOutcome> {
  const warm = await runBuiltinLoad(scenario, { connections: Math.min(options.connections, scenario.warmupRequests), requests: scenario.warmupRequests });
  if (warm.errors === warm.requests) {
    throw new Error(`${scenario.id}: every warm-up request failed (${warm.firstError ?? "unknown error"})`);
  }
  const outcome: ScenarioOutcome = {};
  for (const pass of scenario.passes) {
    const connections = pass === "load" ? options.connections : 1;
    const durationSec = pass === "load" ? options.durationSec : options.latencySec;
    const finishAround = pass === scenario.passes[0] ? options.aroundFirstPass?.(scenario) : undefined;
    const collectedBefore = options.collector?.();
    const cpuBefore = readThreadSnapshot(options.serverPid);
    const peak = startPeakProbe(options.serverPid);
    // The same tool for both passes: Bun's fetch, as a client, adds about 0.08 ms to every exchange
    // on this machine, which wrk does not; that time is neither the target's nor the gateway's.
    const load =
      options.tool === "wrk"
        ? await runWrk(scenario, { connections, durationSec, scriptDir: options.scriptDir, group: options.group })
        : await runBuiltinLoad(scenario, { connections, durationSec });
    const peakRssBytes = peak.stop();
    const cpuAfter = readThreadSnapshot(options.serverPid);
    const collectedAfter = options.collector?.();
    const measured = cpuBefore !== undefined && cpuAfter !== undefined && load.requests > 0;
    const cpuUsPerRequest = measured ? ((cpuAfter.totalMs - cpuBefore.totalMs) * 1000) / load.requests : undefined;
    const threadUsPerRequest = measured ? perRequestUs(threadCpuBetween(cpuBefore, cpuAfter), load.requests) : undefined;
    const collector = collectedBefore && collectedAfter && load.requests > 0 ? collectorUse(collectedBefore, collectedAfter, load.requests) : undefined;
    outcome[pass] = { ...load, cpuUsPerRequest, threadUsPerRequest, peakRssBytes, ...(collector ? { collector } : {}) };
    await finishAround?.();
  }
  return outcome;
}

/** One slice of settling load, seconds: short enough that every row gets its turns. */
const SETTLE_SLICE_SEC = 1;

/**
 * Load on each scenario in turn, a slice at a time, until `seconds` have passed; nothing is
 * measured. The gateway's compilers take tens of seconds of mixed traffic to settle: after 40 s the
 * path rows' `jit` column was 2-27 µs a request, after 12 s 2-51, with none 55-106 (Postgres + Redis,
 * one run each). Without it the rounds count that warm-up, which a long-running instance pays once.
 */
export async function settleTargets(scenarios: readonly Scenario[], seconds: number, options: Omit<RunScenarioOptions, "serverPid" | "latencySec" | "durationSec">): Promise<void> {
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    for (const scenario of scenarios) {
      if (performance.now() >= until) return;
      if (options.tool === "wrk") await runWrk(scenario, { connections: options.connections, durationSec: SETTLE_SLICE_SEC, scriptDir: options.scriptDir, group: options.group });
      else await runBuiltinLoad(scenario, { connections: options.connections, durationSec: SETTLE_SLICE_SEC });
    }
  }
}
