import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { buildReport, type BenchMeta, type BenchReport } from "../bench/build-report.ts";
import { createChildGroup } from "../bench/child-group.ts";
import { BenchArgsError, parseBenchArgs, USAGE, type BenchArgs } from "../bench/parse-bench-args.ts";
import { formatMeta, printReport } from "../bench/print-report.ts";
import { hasWrk } from "../bench/run-wrk.ts";
import { runScenario } from "../bench/run-scenario.ts";
import { medianOfRounds, type Measured } from "../bench/median-of-rounds.ts";
import { measureModuleCosts, type CostRow } from "../bench/measure-module-costs.ts";
import { buildScenarios } from "../bench/scenarios.ts";
import { runOpenStreams, type OpenStreamsResult } from "../bench/run-open-streams.ts";
import { startProcesses } from "../bench/start-processes.ts";

const OPEN_STREAMS_HOLDS = 2;

function chooseTool(args: BenchArgs): "wrk" | "builtin" {
  if (args.tool === "builtin") return "builtin";
  if (hasWrk()) return "wrk";
  if (args.tool === "wrk") throw new BenchArgsError("--tool wrk: wrk is not on PATH (install it, or use --tool builtin)");
  return "builtin";
}

function emit(report: BenchReport, args: BenchArgs): void {
  console.log("");
  printReport(report);
  if (args.json) {
    const json = JSON.stringify(report, null, 2);
    if (args.out) writeFileSync(args.out, `${json}\n`);
    else console.log(json);
  }
}

async function bench(args: BenchArgs): Promise<void> {
  const tool = chooseTool(args);
  const group = createChildGroup();
  // One temp dir for the gateway config, its PGlite data and the wrk scripts, removed on any exit path.
  const dir = mkdtempSync(join(tmpdir(), "routelane-bench-"));
  const scriptDir = join(dir, "wrk");
  mkdirSync(scriptDir);
  const shutdown = async (): Promise<void> => {
    await group.stopAll();
    rmSync(dir, { recursive: true, force: true });
  };
  // Children do not die with us on their own; stop them on Ctrl-C / kill, then exit.
  const onSignal = (signal: NodeJS.Signals): void => {
    console.error(`\nbench: ${signal}, stopping children`);
    void shutdown().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const meta: BenchMeta = {
      tool,
      connections: args.connections,
      durationSec: args.durationSec,
      rounds: args.rounds,
      latencySec: args.latencySec,
      bunVersion: Bun.version,
      nproc: availableParallelism(),
      startedAt: new Date().toISOString(),
      loadAverage: loadavg()[0] ?? 0,
    };
    console.error(`bench: ${formatMeta(meta)}`);
    // Before the servers start, so the only load from this run is the timed calls themselves.
    let costs: CostRow[] | undefined;
    if (args.costs !== "off" && !args.streamsOnly) {
      console.error("bench: timing routing, limits + cache and the request observers in-process…");
      costs = await measureModuleCosts();
    }
    if (args.costs === "only") return emit(buildReport(meta, [], costs), args);
    console.error(`bench: starting sim, bare proxy${args.baselineDir ? `, gateway and the baseline gateway from ${args.baselineDir}` : " and gateway"}…`);
    const processes = await startProcesses(group, {
      dir,
      databaseUrl: args.databaseUrl,
      cpuProfDir: args.cpuProfDir,
      baselineDir: args.baselineDir,
    });
    const scenarios = args.streamsOnly ? [] : buildScenarios(args, processes.endpoints);
    // Rounds interleave the targets over time, so a burst of outside load hits each of them alike.
    const rounds: Measured[][] = scenarios.map(() => []);
    for (let round = 1; round <= args.rounds; round++) {
      for (const [i, scenario] of scenarios.entries()) {
        console.error(`bench: round ${round}/${args.rounds} [${i + 1}/${scenarios.length}] ${scenario.id}`);
        const serverPid = processes.pids[scenario.target];
        // parseBenchArgs only lets `baseline` through with --baseline, which starts its gateway.
        if (serverPid === undefined) throw new Error(`${scenario.id}: no process serves this target`);
        const { load, cpuUsPerRequest, latency } = await runScenario(scenario, {
          ...args,
          tool,
          scriptDir,
          group,
          serverPid,
        });
        // A server that crashed under load turns every later scenario into connection errors; stop with its output.
        group.assertAlive();
        rounds[i]!.push({ result: load, cpuUsPerRequest, latency });
      }
    }
    // Held twice: the first hold grows the process's heap once (JIT, GC heap, allocator arenas),
    // the second shows what each stream costs a process that has held them before.
    const openStreams: OpenStreamsResult[] = [];
    for (let hold = 1; args.streams > 0 && hold <= OPEN_STREAMS_HOLDS; hold++) {
      console.error(`bench: holding ${args.streams} slow streams on the gateway (${hold}/${OPEN_STREAMS_HOLDS})…`);
      openStreams.push(
        await runOpenStreams({
          group,
          gatewayUrl: processes.endpoints.gateway,
          gatewayKey: processes.endpoints.gatewayKey,
          gatewayPid: processes.pids.gateway,
          streams: args.streams,
          hold,
        }),
      );
      group.assertAlive();
    }
    const report = buildReport(
      meta,
      scenarios.map((scenario, i) => ({ scenario, ...medianOfRounds(rounds[i]!) })),
      costs,
      openStreams.length > 0 ? openStreams : undefined,
    );
    emit(report, args);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await shutdown();
  }
}

try {
  const args = parseBenchArgs(Bun.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
  } else {
    await bench(args);
  }
} catch (error) {
  if (error instanceof BenchArgsError) {
    console.error(`bench: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
