import type { JitSymbols } from "./create-jit-symbols.ts";
import type { PerfFrame, PerfSample } from "./parse-perf-script.ts";

/** Samples of one thread name, or of one function of the main thread. */
export interface SampleCount {
  readonly name: string;
  readonly samples: number;
}

export interface PerfAttribution {
  /** Every sample of the process. */
  readonly samples: number;
  /** The other threads' samples, by thread name, most first. */
  readonly otherThreads: readonly SampleCount[];
  /** The main thread's samples… */
  readonly mainSamples: number;
  /**
   * …each charged to the innermost JavaScript function on its stack, with the native code that
   * function called (the runtime, the HTTP server, the collector's work on the allocating thread),
   * most first. Those with no JavaScript on the stack go to one of two entries named "(no JavaScript: …)".
   */
  readonly functions: readonly SampleCount[];
}

const NO_JS_NATIVE = "(no JavaScript: the event loop, the HTTP server, native callbacks)";
const NO_JS_KERNEL = "(no JavaScript: system calls from native code)";

/** JSC's names of compiled code that is a function's own: its tiers, WebAssembly's, and a regular expression's. */
const FUNCTION_KINDS: ReadonlySet<string> = new Set(["Baseline", "DFG", "FTL", "DFGOSREntry", "WasmBBQ", "WasmOMG", "YarrJIT"]);

/** A frame in memory that no file backs: the JIT's code, named by the dump. */
const inJitCode = (frame: PerfFrame): boolean => frame.dso === "[unknown]" || frame.dso.endsWith(".map") || frame.dso.startsWith("//anon");

/** "JSC-FTL: decisionKey#ApfDRD" → "decisionKey"; undefined for code that is no function's (thunks, inline caches, exits). */
function functionOfJitName(name: string): string | undefined {
  const match = /^JSC-(\w+): ?(.*)$/.exec(name);
  if (!match || !FUNCTION_KINDS.has(match[1]!)) return undefined;
  const bare = match[2]!.replace(/#\w+$/, "");
  if (match[1] === "YarrJIT") return `regexp ${bare}`;
  return bare === "" ? "(anonymous)" : bare;
}

function count(counts: Map<string, number>, name: string): void {
  counts.set(name, (counts.get(name) ?? 0) + 1);
}

const sorted = (counts: Map<string, number>): SampleCount[] => [...counts].map(([name, samples]) => ({ name, samples })).sort((a, b) => b.samples - a.samples);

/**
 * Where one process's samples went: by thread, and the main thread's by the JavaScript function
 * that was running. A function still in the interpreter has no compiled code to name it: its
 * samples go to the compiled function that called it.
 */
export function attributePerfSamples(samples: readonly PerfSample[], mainTid: number, symbols: JitSymbols): PerfAttribution {
  const threads = new Map<string, number>();
  const functions = new Map<string, number>();
  let mainSamples = 0;
  for (const sample of samples) {
    if (sample.tid !== mainTid) {
      count(threads, sample.thread);
      continue;
    }
    mainSamples++;
    let charged: string | undefined;
    for (const frame of sample.frames) {
      if (!inJitCode(frame)) continue;
      const name = symbols(frame.ip, sample.timeSec);
      charged = name === undefined ? undefined : functionOfJitName(name);
      if (charged !== undefined) break;
    }
    const leaf = sample.frames[0];
    count(functions, charged ?? (leaf?.dso === "[kernel.kallsyms]" ? NO_JS_KERNEL : NO_JS_NATIVE));
  }
  return { samples: samples.length, otherThreads: sorted(threads), mainSamples, functions: sorted(functions) };
}
