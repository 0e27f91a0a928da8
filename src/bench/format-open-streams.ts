import { mb, ms } from "./format-units.ts";
import type { OpenStreamsResult } from "./run-open-streams.ts";

/** Targets of the open-streams row. */
const TARGET_PROBE_TTFB_P99_MS = 50;
const AIM_RSS_PER_STREAM_BYTES = 64 * 1024;

/** One hold of the open-streams row: what was held, what failed, new requests meanwhile, and the gateway's footprint. */
export function formatOpenStreams(r: OpenStreamsResult): string[] {
  const which = r.hold === 1 ? "first hold, a process that never held so many" : `hold ${r.hold}, the process already grown by the one before`;
  const pass = (ok: boolean): string => (ok ? "PASS" : "MISS");
  const out = [`open streams: ${r.streams} slow streams held on one gateway (Chat, tier normal, one event every 2 s), ${which}`];
  if (r.limitNote) out.push(`  ! ${r.limitNote}`);
  out.push(`  all open after ${r.openSec.toFixed(1)} s · ${r.completed} completed · errors ${r.errors} (target 0) ${pass(r.errors === 0 && r.opened === r.streams)}`);
  if (r.firstError) out.push(`  ! first error: ${r.firstError}`);
  out.push(
    `  new requests meanwhile: ${r.probes} one at a time, ${r.probeErrors} errors · time to first byte p50 ${ms(r.probeTtfbP50Ms)} ms, p99 ${ms(r.probeTtfbP99Ms)} ms (target ≤ ${TARGET_PROBE_TTFB_P99_MS}) ${pass(r.probeErrors === 0 && r.probeTtfbP99Ms <= TARGET_PROBE_TTFB_P99_MS)}`,
  );
  out.push(
    `  gateway RSS ${mb(r.before.rssBytes)} → ${mb(r.peak.rssBytes)} at the peak → ${mb(r.after.rssBytes)} 15 s after: ${(r.rssPerStreamBytes / 1024).toFixed(1)} KB per open stream (aim ≤ ${AIM_RSS_PER_STREAM_BYTES / 1024}) ${pass(r.rssPerStreamBytes <= AIM_RSS_PER_STREAM_BYTES)}`,
  );
  out.push(`  gateway descriptors ${r.before.fds} → ${r.peak.fds} at the peak → ${r.after.fds} after`);
  return out;
}
