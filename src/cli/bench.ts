import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { buildReport, type BenchMeta, type BenchReport, type MemoryInputs } from "../bench/build-report.ts";
import { createChildGroup, type ChildGroup } from "../bench/child-group.ts";
import { countStreamEvents } from "../bench/count-stream-events.ts";
import { deleteBenchRedisKeys } from "../bench/bench-redis-prefix.ts";
import { createBenchDatabase } from "../bench/create-bench-database.ts";
import { measureFirstStart } from "../bench/measure-first-start.ts";
import { FULL_COST_CALLS, measureModuleCosts, QUICK_COST_CALLS, type CostRow } from "../bench/measure-module-costs.ts";
import { otherCpuShare, takeCpuSnapshot } from "../bench/measure-other-cpu.ts";
import { measurePgliteFloor, type PgliteFloor } from "../bench/measure-pglite-floor.ts";
import { BenchArgsError, parseBenchArgs, USAGE, type BenchArgs } from "../bench/parse-bench-args.ts";
import { formatMeta, printReport } from "../bench/print-report.ts";
import { runOpenStreams, type OpenStreamsResult } from "../bench/run-open-streams.ts";
import { runScenario, settleTargets, type ScenarioOutcome } from "../bench/run-scenario.ts";
import { runSoak, type SoakResult } from "../bench/run-soak.ts";
import { hasWrk } from "../bench/run-wrk.ts";
import { readPerfProfile, startPerfRecord, type PassProfile } from "../bench/record-perf.ts";
import { buildBodyScenarios, buildLongStreamScenarios, buildScenarios, buildSoakScenarios, isGatewayTarget, type BenchTarget, type Scenario } from "../bench/scenarios.ts";
import { roundOrder } from "../bench/round-order.ts";
import { startProcesses, type BenchProcesses } from "../bench/start-processes.ts";
import { openDatabase } from "../db/client.ts";
import { answerInfoFlags } from "../ops/answer-info-flags.ts";
import { loadLibc } from "../ops/load-libc.ts";
import { tuneRuntime } from "../ops/size-process.ts";
import { migrateDatabase } from "../db/migrate.ts";

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

const say = (line: string): void => console.error(`bench: ${line}`);

/** Every scenario of the selected sections; the path rows first, so a round runs them back to back. */
function planScenarios(args: BenchArgs, processes: BenchProcesses): Scenario[] {
  const has = (section: BenchArgs["sections"][number]): boolean => args.sections.includes(section);
  const baseline = args.targets.includes("baseline") ? (["baseline"] as const) : [];
  const longTargets: BenchTarget[] = ["bare", "cross", ...baseline, ...(args.full ? (["gateway"] as const) : [])];
  // Same-format too: the path an agent's stream takes when the tier's model speaks its API.
  const trickledTargets: BenchTarget[] = ["bare", "cross", ...baseline, "gateway"];
  return [
    ...(has("paths") ? buildScenarios(args, processes.endpoints) : []),
    ...(has("bodies") ? buildBodyScenarios(processes.endpoints, args.warmupRequests, args.targets.includes("baseline")) : []),
    ...(has("long-stream") ? buildLongStreamScenarios(args.formats, longTargets, processes.endpoints, args.warmupRequests) : []),
    ...(has("long-stream") ? buildLongStreamScenarios(args.formats, trickledTargets, processes.endpoints, args.warmupRequests, "trickled-stream") : []),
  ];
}

/** `--perf`: the first passes of the gateway's and the bare proxy's scenarios in the middle round, each recorded to a file of its own. */
interface PerfPlan {
  readonly dir: string;
  /** The round in the middle of the run in time (the second of three), whatever its CPU. */
  readonly round: number;
  readonly recorded: Array<{ readonly index: number; readonly pid: number; readonly file: string; error?: string | undefined }>;
}

/** Rounds interleave the scenarios over time, so a burst of outside load hits each of them alike. */
async function runRounds(args: BenchArgs, tool: "wrk" | "builtin", scriptDir: string, group: ChildGroup, processes: BenchProcesses, scenarios: readonly Scenario[], perf?: PerfPlan): Promise<ScenarioOutcome[][]> {
  const rounds: ScenarioOutcome[][] = scenarios.map(() => []);
  const settling = scenarios.filter((s) => s.kind === "path" && isGatewayTarget(s.target));
  if (args.settleSec > 0 && settling.length > 0) {
    say(`settling: ${args.settleSec}s of load on ${settling.map((s) => s.id).join(", ")} in turn, not measured`);
    await settleTargets(settling, args.settleSec, { ...args, tool, scriptDir, group });
    group.assertAlive();
  }
  for (let round = 1; round <= args.rounds; round++) {
    for (const i of roundOrder(scenarios, round)) {
      const scenario = scenarios[i]!;
      say(`round ${round}/${args.rounds} [${i + 1}/${scenarios.length}] ${scenario.id}`);
      const serverPid = processes.pids[scenario.target];
      // parseBenchArgs only lets `baseline` through with --baseline, which starts its gateway.
      if (serverPid === undefined) throw new Error(`${scenario.id}: no process serves this target`);
      const profiled = perf !== undefined && round === perf.round && (serverPid === processes.pids.gateway || serverPid === processes.pids.bare);
      const aroundFirstPass = !profiled
        ? undefined
        : () => {
            const file = join(perf.dir, `${scenario.id.replaceAll("/", "-")}.perf.data`);
            const recording = startPerfRecord(group, serverPid, file);
            return async () => {
              perf.recorded.push({ index: i, pid: serverPid, file, error: (await recording.stop()).error });
            };
          };
      const collectorLog = processes.collectors.get(serverPid);
      const collector = collectorLog && (() => collectorLog.heaps());
      rounds[i]!.push(await runScenario(scenario, { ...args, tool, scriptDir, group, serverPid, aroundFirstPass, collector }));
      // A server that crashed under load turns every later scenario into connection errors; stop with its output.
      group.assertAlive();
    }
  }
  return rounds;
}

async function holdOpenStreams(args: BenchArgs, group: ChildGroup, processes: BenchProcesses): Promise<OpenStreamsResult[]> {
  // Held twice: the first hold grows the process's heap once (JIT, GC heap, allocator arenas),
  // the second shows what each stream costs a process that has held them before.
  const holds: OpenStreamsResult[] = [];
  for (let hold = 1; hold <= OPEN_STREAMS_HOLDS; hold++) {
    say(`holding ${args.streams} slow streams on the gateway (${hold}/${OPEN_STREAMS_HOLDS})…`);
    holds.push(
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
  return holds;
}

/** The cost section on the run's database: the gateway's own data dir once it has stopped, or a new one when no gateway ran. */
async function measureCosts(args: BenchArgs, databaseUrl: string | undefined, dataDir: string): Promise<CostRow[]> {
  say("timing each part of a request in-process…");
  const database = await openDatabase({ databaseUrl, dataDir });
  try {
    await migrateDatabase(database);
    return await measureModuleCosts({ database, redisUrl: args.redisUrl, formats: args.formats, calls: args.full ? FULL_COST_CALLS : QUICK_COST_CALLS, loadedInFlight: args.connections });
  } finally {
    await database.close();
  }
}

/** The recordings read back once the processes have stopped (their jitdumps are whole then). */
async function readProfiles(perf: PerfPlan, scenarios: readonly Scenario[], rounds: readonly ScenarioOutcome[][]): Promise<PassProfile[]> {
  say(`reading ${perf.recorded.length} perf recordings…`);
  const profiles: PassProfile[] = [];
  for (const { index, pid, file, error } of perf.recorded) {
    const scenarioId = scenarios[index]!.id;
    const cpuUsPerRequest = rounds[index]![perf.round - 1]?.[scenarios[index]!.passes[0]!]?.cpuUsPerRequest;
    if (error !== undefined) {
      profiles.push({ scenarioId, cpuUsPerRequest, error });
      continue;
    }
    try {
      profiles.push({ scenarioId, cpuUsPerRequest, attribution: await readPerfProfile(file, pid, perf.dir) });
    } catch (failure) {
      profiles.push({ scenarioId, cpuUsPerRequest, error: failure instanceof Error ? failure.message : String(failure) });
    }
  }
  return profiles;
}

async function bench(args: BenchArgs): Promise<void> {
  const started = performance.now();
  const cpuBefore = takeCpuSnapshot();
  const tool = chooseTool(args);
  let perf: PerfPlan | undefined;
  if (args.perfDir !== undefined) {
    if (Bun.which("perf") === null) throw new BenchArgsError("--perf: perf is not on PATH (Debian: apt-get install linux-perf)");
    mkdirSync(args.perfDir, { recursive: true });
    // A directory of the run's own: a jitdump is named by the pid, which another run may have had.
    perf = { dir: mkdtempSync(join(args.perfDir, "run-")), round: Math.ceil(args.rounds / 2), recorded: [] };
    say(`perf: the recordings and the jitdumps go to ${perf.dir}`);
  }
  // The production profile runs on a database of its own on the server named, dropped at the end.
  const benchDatabase = args.databaseUrl ? await createBenchDatabase(args.databaseUrl) : undefined;
  const databaseUrl = benchDatabase?.url;
  // The baseline checkout's gateway writes a database of its own beside it.
  const baselineDatabase =
    args.databaseUrl && args.baselineDir !== undefined
      ? await createBenchDatabase(args.databaseUrl, "baseline").catch(async (error: unknown) => {
          await benchDatabase?.drop().catch(() => {});
          throw error;
        })
      : undefined;
  const group = createChildGroup();
  // One temp dir for the gateway config, its PGlite data and the wrk scripts, removed on any exit path.
  const dir = mkdtempSync(join(tmpdir(), "routelane-bench-"));
  const scriptDir = join(dir, "wrk");
  mkdirSync(scriptDir);
  const shutdown = async (): Promise<void> => {
    await group.stopAll();
    rmSync(dir, { recursive: true, force: true });
    for (const database of [benchDatabase, baselineDatabase]) {
      if (database) await database.drop().catch((error: unknown) => console.error(`bench: the run's database was not dropped: ${error instanceof Error ? error.message : String(error)}`));
    }
    if (args.redisUrl) await deleteBenchRedisKeys(args.redisUrl).catch((error: unknown) => console.error(`bench: the run's Redis keys were not deleted: ${error instanceof Error ? error.message : String(error)}`));
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
      profile: args.full ? "full" : "quick",
      tool,
      database: args.databaseUrl ? "postgres" : "pglite",
      redis: args.redisUrl !== undefined,
      connections: args.connections,
      durationSec: args.durationSec,
      rounds: args.rounds,
      latencySec: args.latencySec,
      settleSec: args.sections.includes("paths") ? args.settleSec : 0,
      sections: args.sections,
      soakMinutes: args.soakMinutes,
      bunVersion: Bun.version,
      nproc: availableParallelism(),
      startedAt: new Date().toISOString(),
      baseline: args.baselineDir === undefined ? undefined : { dir: args.baselineDir, env: args.baselineEnv },
    };
    say(formatMeta(meta));
    const has = (section: BenchArgs["sections"][number]): boolean => args.sections.includes(section);
    const needsServers = args.sections.some((s) => s !== "costs");
    let measured: Array<{ scenario: Scenario; rounds: ScenarioOutcome[] }> = [];
    const longStreamEvents: Record<string, number> = {};
    let memory: MemoryInputs | undefined;
    let openStreams: OpenStreamsResult[] | undefined;
    let soak: SoakResult | undefined;
    let profiles: PassProfile[] | undefined;
    let costsDataDir = join(dir, "costs-data");
    if (needsServers) {
      say(`starting sim, bare proxy${args.baselineDir ? `, gateway and the baseline gateway from ${args.baselineDir}` : " and gateway"}…`);
      const processes = await startProcesses(group, {
        dir,
        databaseUrl,
        redisUrl: args.redisUrl,
        cpuProfDir: args.cpuProfDir,
        jitDumpDir: perf?.dir,
        baselineDir: args.baselineDir,
        baselineEnv: args.baselineEnv,
        baselineDatabaseUrl: baselineDatabase?.url,
      });
      costsDataDir = processes.gateway.dataDir;
      let firstStartPeakBytes = meta.database === "pglite" ? processes.gatewayStartPeakBytes : undefined;
      let firstStartNote = meta.database === "pglite" ? "the bench's gateway" : undefined;
      if (has("memory") && meta.database === "postgres") {
        say("a first start from source on PGlite and an empty data dir…");
        firstStartPeakBytes = await measureFirstStart(group, dir, processes.endpoints.direct);
        firstStartNote = "a gateway started for it alone, on PGlite";
      }
      const scenarios = planScenarios(args, processes);
      for (const scenario of scenarios.filter((s) => (s.kind === "long-stream" || s.kind === "trickled-stream") && s.target !== "bare")) longStreamEvents[scenario.id] = await countStreamEvents(scenario);
      const rounds = await runRounds(args, tool, scriptDir, group, processes, scenarios, perf);
      measured = scenarios.map((scenario, i) => ({ scenario, rounds: rounds[i]! }));
      if (has("soak")) {
        say(`soak: ${args.soakMinutes} minute${args.soakMinutes === 1 ? "" : "s"} of new conversations on the gateway…`);
        soak = await runSoak({
          scenarios: buildSoakScenarios(processes.endpoints),
          minutes: args.soakMinutes,
          connections: args.connections,
          tool,
          scriptDir,
          group,
          gatewayPid: processes.pids.gateway,
          onMinute: (minute) => say(`soak: minute ${minute}/${args.soakMinutes}`),
        });
      }
      if (has("open-streams")) openStreams = await holdOpenStreams(args, group, processes);
      // The gateway stops first: its profile is written on exit, and PGlite's files are free for the floor and the costs.
      await group.stop(processes.gateway.child);
      if (perf) {
        await group.stop(processes.bare);
        profiles = await readProfiles(perf, scenarios, rounds);
      }
      let floor: PgliteFloor | undefined;
      if (has("memory") && meta.database === "pglite") {
        say("the PGlite floor: a bare script on the gateway's data dir…");
        floor = await measurePgliteFloor(group, join(processes.gateway.dataDir, "pglite"));
      }
      if (has("memory")) memory = { floor, firstStartPeakBytes, firstStartNote, gatewayIdleRssBytes: processes.gatewayIdleRssBytes };
      // Nothing else runs while the parts are timed.
      await group.stopAll();
    }
    const costs = has("costs") ? await measureCosts(args, databaseUrl, costsDataDir) : undefined;
    const cpuAfter = takeCpuSnapshot();
    const others = cpuBefore && cpuAfter ? otherCpuShare(cpuBefore, cpuAfter, meta.nproc) : undefined;
    const report = buildReport({ meta: { ...meta, otherCpuShare: others, elapsedSec: (performance.now() - started) / 1000 }, measured, longStreamEvents, memory, costs, soak, openStreams, profiles });
    emit(report, args);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await shutdown();
  }
}

try {
  const argv = Bun.argv.slice(2);
  // Answered before the arguments are checked, as every program of the project does.
  if (answerInfoFlags(argv, USAGE, (text) => console.log(text))) process.exit(0);
  const args = parseBenchArgs(argv);
  if (args.help) {
    console.log(USAGE);
  } else {
    // The cost section runs in this process: under the gateway's runtime tuning, as the gateway does.
    tuneRuntime(loadLibc());
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
