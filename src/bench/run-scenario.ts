import type { ChildGroup } from "./child-group.ts";
import { readProcessCpuMs } from "./read-process-cpu.ts";
import type { LoadResult } from "./load-result.ts";
import { runBuiltinLoad } from "./run-builtin-load.ts";
import { runWrk } from "./run-wrk.ts";
import type { Scenario } from "./scenarios.ts";

export interface RunScenarioOptions {
  readonly tool: "wrk" | "builtin";
  readonly connections: number;
  readonly durationSec: number;
  readonly latencySec: number;
  readonly warmupRequests: number;
  readonly scriptDir: string;
  readonly group: ChildGroup;
  /** The process serving the target: its CPU per request is reported beside the load numbers. */
  readonly serverPid: number;
}

export interface ScenarioOutcome {
  readonly load: LoadResult;
  /** Server CPU µs per completed request; undefined without procfs. */
  readonly cpuUsPerRequest: number | undefined;
  /**
   * One connection, one request at a time: latency without queueing, which is what "added
   * latency" means (at full load p50 is mostly time spent waiting in line).
   */
  readonly latency: LoadResult | undefined;
}

/**
 * Warms the target up (JIT, connection pools, the gateway's key cache) with unmeasured requests,
 * then measures. A warm-up where every request failed stops here: measuring a broken scenario
 * would report a fast error path as throughput.
 */
export async function runScenario(scenario: Scenario, options: RunScenarioOptions): Promise<ScenarioOutcome> {
  const warm = await runBuiltinLoad(scenario, { connections: options.connections, requests: options.warmupRequests });
  if (warm.errors === warm.requests) {
    throw new Error(`${scenario.id}: every warm-up request failed (${warm.firstError ?? "unknown error"})`);
  }
  const cpuBefore = readProcessCpuMs(options.serverPid);
  const drive = (connections: number, durationSec: number): Promise<LoadResult> =>
    options.tool === "wrk"
      ? runWrk(scenario, { connections, durationSec, scriptDir: options.scriptDir, group: options.group })
      : runBuiltinLoad(scenario, { connections, durationSec });
  const load = await drive(options.connections, options.durationSec);
  const cpuAfter = readProcessCpuMs(options.serverPid);
  const cpuUsPerRequest =
    cpuBefore === undefined || cpuAfter === undefined || load.requests === 0 ? undefined : ((cpuAfter - cpuBefore) * 1000) / load.requests;
  // The same client as the load: Bun's fetch, as a client, adds about 0.08 ms to every exchange
  // on this machine, which wrk does not; that time is neither the target's nor the gateway's.
  const latency = options.latencySec > 0 ? await drive(1, options.latencySec) : undefined;
  return { load, cpuUsPerRequest, latency };
}
