/** One frame of a sample's stack, innermost first. */
export interface PerfFrame {
  readonly ip: bigint;
  /** `[unknown]` where perf found no symbol. */
  readonly symbol: string;
  /** The file the address lies in: a path, `[kernel.kallsyms]`, `[unknown]`, a `perf-PID.map`… */
  readonly dso: string;
}

export interface PerfSample {
  /** The thread's name ("bun", "HTTP Client", "HeapHelper", …). */
  readonly thread: string;
  readonly tid: number;
  readonly timeSec: number;
  readonly frames: readonly PerfFrame[];
}

// `perf script -F comm,tid,time,ip,sym,dso`: a header line (the name right-aligned, so it may start with a space), then one
// indented frame a line, then a blank line.
const HEADER = /^\s*(\S.*?)\s+(\d+)\s+(\d+\.\d+):\s*$/;
const FRAME = /^\s+([0-9a-f]+)\s+(.*?)\s*\(([^()]*)\)$/;

/** The samples of `perf script -F comm,tid,time,ip,sym,dso` output; lines of any other shape are skipped. */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  let frames: PerfFrame[] | undefined;
  for (const line of text.split("\n")) {
    const header = HEADER.exec(line);
    if (header) {
      frames = [];
      samples.push({ thread: header[1]!, tid: Number(header[2]), timeSec: Number(header[3]), frames });
      continue;
    }
    const frame = frames && FRAME.exec(line);
    if (frame) frames!.push({ ip: BigInt(`0x${frame[1]}`), symbol: frame[2]!, dso: frame[3]! });
  }
  return samples;
}
