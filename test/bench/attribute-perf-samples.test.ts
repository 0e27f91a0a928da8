import { describe, expect, test } from "bun:test";
import { attributePerfSamples } from "../../src/bench/attribute-perf-samples.ts";
import { createJitSymbols } from "../../src/bench/create-jit-symbols.ts";
import { parsePerfScript } from "../../src/bench/parse-perf-script.ts";

// What `perf script -F comm,tid,time,ip,sym,dso` prints: JIT code has no file, native code is the executable's.
const SCRIPT = `bun  100   10.000100: 
\t    7f0000001010 [unknown] ([unknown])
\t         1a2b3c [unknown] (/usr/lib/bun/bin/bun.exe)

bun  100   10.000200: 
\t         2a2b3c [unknown] (/usr/lib/bun/bin/bun.exe)
\t    7f0000002008 [unknown] (/tmp/perf-100.map)
\t    7f0000001010 [unknown] ([unknown])
\t         1a2b3c [unknown] (/usr/lib/bun/bin/bun.exe)

bun  100   10.000300: 
\tffffffff81000000 tcp_sendmsg ([kernel.kallsyms])
\t         3a2b3c [unknown] (/usr/lib/bun/bin/bun.exe)

bun  100   10.000400: 
\t         4a2b3c operator new(unsigned long) (/usr/lib/bun/bin/bun.exe)
\t         1a2b3c [unknown] (/usr/lib/bun/bin/bun.exe)

 ollector Thread  104   10.000500: 
\t         5a2b3c [unknown] (/usr/lib/bun/bin/bun.exe)

HTTP Client  103   10.000600: 
\t         6a2b3c [unknown] (/usr/lib/bun/bin/bun.exe)

HTTP Client  103   10.000700: 
\t         6a2b3c [unknown] (/usr/lib/bun/bin/bun.exe)
`;

const NO_JS_NATIVE = "(no JavaScript: the event loop, the HTTP server, native callbacks)";
const NO_JS_KERNEL = "(no JavaScript: system calls from native code)";

const symbols = createJitSymbols([
  { timeSec: 9, start: 0x7f0000001000n, end: 0x7f0000001100n, name: "JSC-FTL: handleChatRequest#Ab12Cd" },
  { timeSec: 9, start: 0x7f0000002000n, end: 0x7f0000002040n, name: "JSC-Thunk: CallTrampoline" },
]);

describe("parsePerfScript", () => {
  test("reads each sample's thread, time and frames, innermost first", () => {
    const samples = parsePerfScript(SCRIPT);
    expect(samples.map((s) => [s.thread, s.tid, s.timeSec, s.frames.length])).toEqual([
      ["bun", 100, 10.0001, 2],
      ["bun", 100, 10.0002, 4],
      ["bun", 100, 10.0003, 2],
      ["bun", 100, 10.0004, 2],
      ["ollector Thread", 104, 10.0005, 1],
      ["HTTP Client", 103, 10.0006, 1],
      ["HTTP Client", 103, 10.0007, 1],
    ]);
    expect(samples[1]!.frames[1]).toEqual({ ip: 0x7f0000002008n, symbol: "[unknown]", dso: "/tmp/perf-100.map" });
    // A symbol with parentheses of its own keeps them; the file is the last pair.
    expect(samples[3]!.frames[0]).toEqual({ ip: 0x4a2b3cn, symbol: "operator new(unsigned long)", dso: "/usr/lib/bun/bin/bun.exe" });
  });

  test("text of any other shape gives no samples", () => {
    expect(parsePerfScript("")).toEqual([]);
    expect(parsePerfScript("  some warning from perf\n")).toEqual([]);
  });
});

describe("attributePerfSamples", () => {
  const attribution = attributePerfSamples(parsePerfScript(SCRIPT), 100, symbols);

  test("the main thread's samples go to the innermost function past the runtime's own code, or to no JavaScript", () => {
    expect(attribution.samples).toBe(7);
    expect(attribution.mainSamples).toBe(4);
    // The first sample runs in the function itself, the second in native code it called through a thunk.
    expect(attribution.functions).toEqual([
      { name: "handleChatRequest", samples: 2 },
      { name: NO_JS_KERNEL, samples: 1 },
      { name: NO_JS_NATIVE, samples: 1 },
    ]);
  });

  test("the other threads are counted by name", () => {
    expect(attribution.otherThreads).toEqual([
      { name: "HTTP Client", samples: 2 },
      { name: "ollector Thread", samples: 1 },
    ]);
  });
});

describe("attributePerfSamples: the names JSC gives its code", () => {
  /** What one main-thread sample in code of that name is charged to. */
  const chargedTo = (jitName: string): string => {
    const sample = { thread: "bun", tid: 1, timeSec: 2, frames: [{ ip: 0x1000n, symbol: "[unknown]", dso: "[unknown]" }] };
    return attributePerfSamples([sample], 1, createJitSymbols([{ timeSec: 1, start: 0x1000n, end: 0x1100n, name: jitName }])).functions[0]!.name;
  };

  test.each([
    ["JSC-FTL: decisionKey#ApfDRD", "decisionKey"],
    ["JSC-DFG: #BLTkDz", "(anonymous)"],
    ["JSC-Baseline: readBody#Xy12Zz", "readBody"],
    ["JSC-WasmBBQ: .wasm-function[868]#C0A3Kg", ".wasm-function[868]"],
    ["JSC-YarrJIT: /[a-z]+/", "regexp /[a-z]+/"],
    // The runtime's own code names no function: with none below it, no JavaScript ran.
    ["JSC-Thunk: DefaultCall", NO_JS_NATIVE],
    ["JSC-InlineCache: GetById", NO_JS_NATIVE],
    ["JSC-DFGOSRExit: exit", NO_JS_NATIVE],
    ["something else", NO_JS_NATIVE],
  ])("%p → %p", (jitName, charged) => {
    expect(chargedTo(jitName)).toBe(charged);
  });
});
