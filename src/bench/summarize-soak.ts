import { SOAK_FILL_MINUTES, SOAK_RSS_GROWTH_ALLOWANCE, verdict, type Verdict } from "./bench-targets.ts";
import { median } from "./median-of-rounds.ts";
import type { SoakResult } from "./run-soak.ts";

/** One minute of the soak: the passes that started in it, and the RSS read during it. */
export interface SoakMinute {
  /** 1 for the soak's first minute. */
  readonly minute: number;
  readonly requests: number;
  readonly errors: number;
  /** The gateway's CPU over those passes ÷ their requests, µs. */
  readonly cpuUsPerRequest: number | undefined;
  readonly rssMedianBytes: number | undefined;
  readonly rssMaxBytes: number | undefined;
}

export interface SoakSummary {
  readonly minutes: number;
  readonly passSec: number;
  readonly connections: number;
  readonly rows: readonly SoakMinute[];
  readonly requests: number;
  readonly errors: number;
  readonly firstError: string | undefined;
  /** The median RSS of the first minute after the fill, the one the end is set against. */
  readonly settledRssBytes: number | undefined;
  /** The median RSS of the last minute. */
  readonly endRssBytes: number | undefined;
  readonly peakRssBytes: number | undefined;
  /** (end − settled) ÷ settled. */
  readonly growth: number | undefined;
  readonly flat: Verdict;
}

/**
 * The soak minute by minute, and whether the gateway's memory stayed flat: the last minute's
 * median RSS against that of the first minute after the fill (the minutes in which the keyed
 * stores first fill up to their bounds), at most `SOAK_RSS_GROWTH_ALLOWANCE` above it. A soak with
 * an error, or too short to have a minute after the fill and a later one, is not judged.
 */
export function summarizeSoak(result: SoakResult): SoakSummary {
  const count = Math.ceil(result.minutes);
  const minuteOf = (sec: number): number => Math.min(count, Math.floor(sec / 60) + 1);
  const rows: SoakMinute[] = [];
  for (let minute = 1; minute <= count; minute++) {
    const passes = result.passes.filter((p) => minuteOf(p.startSec) === minute);
    const rss = result.samples.filter((s) => minuteOf(s.atSec) === minute).map((s) => s.rssBytes);
    const requests = passes.reduce((sum, p) => sum + p.requests, 0);
    const cpuKnown = passes.every((p) => p.cpuMs !== undefined);
    const cpuMs = passes.reduce((sum, p) => sum + (p.cpuMs ?? 0), 0);
    rows.push({
      minute,
      requests,
      errors: passes.reduce((sum, p) => sum + p.errors, 0),
      cpuUsPerRequest: cpuKnown && requests > 0 ? (cpuMs * 1000) / requests : undefined,
      rssMedianBytes: rss.length > 0 ? median(rss) : undefined,
      rssMaxBytes: rss.length > 0 ? Math.max(...rss) : undefined,
    });
  }
  const errors = rows.reduce((sum, r) => sum + r.errors, 0);
  const settled = rows[SOAK_FILL_MINUTES]?.rssMedianBytes;
  const end = count > SOAK_FILL_MINUTES + 1 ? rows[count - 1]?.rssMedianBytes : undefined;
  const growth = settled !== undefined && end !== undefined ? (end - settled) / settled : undefined;
  const allowance = Math.round(SOAK_RSS_GROWTH_ALLOWANCE * 100);
  return {
    minutes: result.minutes,
    passSec: result.passSec,
    connections: result.connections,
    rows,
    requests: rows.reduce((sum, r) => sum + r.requests, 0),
    errors,
    firstError: result.passes.find((p) => p.firstError !== undefined)?.firstError,
    settledRssBytes: settled,
    endRssBytes: end,
    peakRssBytes: result.samples.length > 0 ? Math.max(...result.samples.map((s) => s.rssBytes)) : undefined,
    growth,
    flat: verdict(`last minute ≤ minute ${SOAK_FILL_MINUTES + 1} + ${allowance} %`, growth === undefined ? undefined : errors === 0 && growth <= SOAK_RSS_GROWTH_ALLOWANCE),
  };
}
