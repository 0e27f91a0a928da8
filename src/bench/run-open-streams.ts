import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SAME_FORMAT_TIER } from "./build-bench-config.ts";
import type { ChildGroup } from "./child-group.ts";
import type { HoldStreamsLine, HoldStreamsOptions, HoldStreamsReport } from "./hold-streams.ts";

/** One event every 2 s; 100 words make about 37 events: a stream lasts over a minute, as LLM streams do. */
const STREAM_DIRECTIVE = "[sim gap=2000 words=100]";
const BATCH = 500;
/** New requests timed while the streams are open: 200 over 10 s. */
const PROBES = 200;
const PROBE_EVERY_MS = 50;
/** Descriptors the gateway keeps for itself beyond two per stream. */
const RESERVED_FILES = 256;
/** How long the gateway gets to close what the streams held once they ended… */
const SETTLE_MS = 10_000;
/** …and then to hand back the memory they used (its garbage is collected over the next seconds). */
const AFTER_MS = 15_000;

/** The gateway process's resident memory and open descriptors at one moment. */
export interface Footprint {
  readonly rssBytes: number;
  readonly fds: number;
}

export interface OpenStreamsResult extends HoldStreamsReport {
  /** 1 for the first hold (a process that never held so many), 2 for the next (its heap already grown). */
  readonly hold: number;
  /** Streams asked for (`--streams`); `streams` is what ran, fewer when the gateway's open-file limit cannot hold them. */
  readonly asked: number;
  readonly limitNote: string | undefined;
  readonly before: Footprint;
  readonly peak: Footprint;
  readonly after: Footprint;
  /** (peak − before) RSS / streams. */
  readonly rssPerStreamBytes: number;
}

function footprint(pid: number): Footprint {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN);
  return { rssBytes: rssKb * 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
}

function openFileSoftLimit(pid: number): number {
  const line = readFileSync(`/proc/${pid}/limits`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("Max open files"));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === undefined || soft === "unlimited" ? Number.POSITIVE_INFINITY : Number(soft);
}

/**
 * One hold of the open-streams row: `streams` slow streams held on the gateway at once by a load
 * generator of its own (src/bench/hold-streams.ts), new requests timed meanwhile, and the
 * gateway's memory and descriptors before, at the peak and after. Runs fewer streams, and says so,
 * when the gateway's open-file limit cannot hold them (two sockets each).
 */
export async function runOpenStreams(options: {
  group: ChildGroup;
  gatewayUrl: string;
  gatewayKey: string;
  gatewayPid: number;
  streams: number;
  hold: number;
}): Promise<OpenStreamsResult> {
  const { group, gatewayPid } = options;
  const before = footprint(gatewayPid);
  const limit = openFileSoftLimit(gatewayPid);
  const fits = Math.floor((limit - before.fds - RESERVED_FILES) / 2);
  const streams = Math.min(options.streams, fits);
  const limitNote =
    streams < options.streams ? `the gateway's open-file limit (${limit}, raised to its hard limit) holds about ${fits} streams: ran ${streams} of ${options.streams}` : undefined;
  const hold: HoldStreamsOptions = {
    url: options.gatewayUrl,
    key: options.gatewayKey,
    body: { model: SAME_FORMAT_TIER, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: STREAM_DIRECTIVE }] },
    streams,
    batch: BATCH,
    probes: PROBES,
    probeEveryMs: PROBE_EVERY_MS,
    probeBody: { model: SAME_FORMAT_TIER, stream: true, stream_options: { include_usage: true } },
  };
  const holder = group.spawn("stream holder", [process.execPath, "run", join(import.meta.dir, "hold-streams.ts"), JSON.stringify(hold)], {
    ...process.env,
    BUN_CONFIG_MAX_HTTP_REQUESTS: String(Math.min(65_535, streams + 64)),
  });
  let peak = before;
  const sample = (): void => {
    const now = footprint(gatewayPid);
    if (now.rssBytes > peak.rssBytes || now.fds > peak.fds) peak = { rssBytes: Math.max(now.rssBytes, peak.rssBytes), fds: Math.max(now.fds, peak.fds) };
  };
  const sampler = setInterval(sample, 250);
  try {
    await holder.exited;
    await holder.drained;
  } finally {
    clearInterval(sampler);
  }
  const report = holder
    .output()
    .split("\n")
    .filter((line) => line.startsWith('{"event":"done"'))
    .map((line) => JSON.parse(line) as HoldStreamsLine)
    .find((line): line is Extract<HoldStreamsLine, { event: "done" }> => line.event === "done");
  if (!report) throw new Error(`the stream holder ended without its report (code ${holder.proc.exitCode}):\n${holder.output()}`);
  // The streams have ended on the client; give the gateway the time to close its side.
  let after = footprint(gatewayPid);
  for (const started = performance.now(); after.fds > before.fds + 16 && performance.now() - started < SETTLE_MS; after = footprint(gatewayPid)) await Bun.sleep(250);
  await Bun.sleep(AFTER_MS);
  after = footprint(gatewayPid);
  return {
    ...report,
    hold: options.hold,
    asked: options.streams,
    limitNote,
    before,
    peak,
    after,
    rssPerStreamBytes: report.opened > 0 ? (peak.rssBytes - before.rssBytes) / report.opened : Number.NaN,
  };
}
