import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { attributePerfSamples, type PerfAttribution } from "./attribute-perf-samples.ts";
import type { ChildGroup } from "./child-group.ts";
import { createJitSymbols } from "./create-jit-symbols.ts";
import { parsePerfScript } from "./parse-perf-script.ts";
import { readJitDump, type JitDump } from "./read-jit-dump.ts";

/** Samples a second: enough for a 2 s pass to name the functions above a few tenths of a per cent, little enough to leave the pass its CPU. */
const SAMPLES_A_SECOND = 999;

/** What a process under `--perf` needs in its environment: JSC writes a jitdump of every piece of code it compiles. */
export const jitDumpEnvironment = (dir: string): Record<string, string> => ({ BUN_JSC_useJITDump: "1", BUN_JSC_jitDumpDirectory: dir });

/** One pass under perf (a row's first), attributed, or why it could not be. */
export interface PassProfile {
  readonly scenarioId: string;
  /** The process's CPU µs per request in that pass (procfs): the samples' shares are shares of it. */
  readonly cpuUsPerRequest: number | undefined;
  readonly attribution?: PerfAttribution | undefined;
  readonly error?: string | undefined;
}

export interface PerfRecording {
  /** Ends the recording; its data file is complete once this resolves, or the error says why there is none. */
  stop(): Promise<{ readonly error?: string }>;
}

/**
 * Samples one process's stacks (every thread) with the kernel's CPU clock, until stopped. `-k 1`
 * stamps samples with CLOCK_MONOTONIC, the clock JSC's jitdump uses, so each sample's JIT frames
 * can be named by the code that lay there at that moment.
 */
export function startPerfRecord(group: ChildGroup, pid: number, file: string): PerfRecording {
  const child = group.spawn(
    "perf record",
    ["perf", "record", "-q", "-k", "1", "-e", "cpu-clock", "-F", String(SAMPLES_A_SECOND), "-g", "-p", String(pid), "-o", file],
    process.env,
  );
  return {
    async stop() {
      // perf record ends on SIGTERM as on Ctrl-C: it writes out what it holds first.
      await group.stop(child);
      await child.drained;
      const code = child.proc.exitCode;
      return code === 0 || child.proc.signalCode === "SIGTERM" ? {} : { error: `perf record exited with ${code ?? child.proc.signalCode}: ${child.output().trim()}` };
    },
  };
}

/** The process's last jitdump: a process that replaced its image (exec) wrote one per image, and only the last one's code ran after. */
function readLastJitDump(dir: string, pid: number): JitDump | undefined {
  const name = new RegExp(`^jit-(\\d+-)?${pid}\\.dump$`);
  let last: JitDump | undefined;
  for (const file of readdirSync(dir)) {
    if (!name.test(file)) continue;
    const dump = readJitDump(readFileSync(join(dir, file)));
    if (last === undefined || dump.startSec > last.startSec) last = dump;
  }
  return last;
}

/** A recording read back (`perf script`) and attributed; the process must have stopped, so its jitdump is complete. */
export async function readPerfProfile(file: string, pid: number, jitDumpDir: string): Promise<PerfAttribution> {
  const script = Bun.spawn(["perf", "script", "-i", file, "-F", "comm,tid,time,ip,sym,dso"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [text, errors, code] = await Promise.all([new Response(script.stdout).text(), new Response(script.stderr).text(), script.exited]);
  if (code !== 0) throw new Error(`perf script exited with ${code}: ${errors.trim()}`);
  const dump = readLastJitDump(jitDumpDir, pid);
  return attributePerfSamples(parsePerfScript(text), pid, createJitSymbols(dump?.loads ?? []));
}
