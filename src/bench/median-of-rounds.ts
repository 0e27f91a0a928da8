import type { LoadResult } from "./load-result.ts";
import type { PassResult, ScenarioOutcome } from "./run-scenario.ts";
import type { Pass } from "./scenarios.ts";

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function medianOf(values: ReadonlyArray<number | undefined>): number | undefined {
  const present = values.filter((v): v is number => v !== undefined);
  return present.length === 0 ? undefined : median(present);
}

function maxOf(values: ReadonlyArray<number | undefined>): number | undefined {
  const present = values.filter((v): v is number => v !== undefined);
  return present.length === 0 ? undefined : Math.max(...present);
}

/**
 * The middle round by CPU per request (the lower middle one when the rounds are even), of those with
 * a thread split: its split, whose parts add up to that round's CPU, which is the median reported,
 * and its collector's work, beside it.
 */
function middleRound(results: readonly PassResult[]): Pick<PassResult, "threadUsPerRequest" | "collector"> {
  const measured = results.filter((r) => r.cpuUsPerRequest !== undefined && r.threadUsPerRequest !== undefined);
  if (measured.length === 0) return {};
  measured.sort((a, b) => a.cpuUsPerRequest! - b.cpuUsPerRequest!);
  const { threadUsPerRequest, collector } = measured[Math.floor((measured.length - 1) / 2)]!;
  return { threadUsPerRequest, ...(collector ? { collector } : {}) };
}

/**
 * One pass's rounds folded into one: the median of each rate, latency and CPU per request (a single
 * run on a shared 2-core machine swings by a fifth) with the middle round's thread split and
 * collector work, the sum of requests and errors, and the highest peak memory (a peak is a maximum,
 * not a typical value).
 */
function foldPasses(results: readonly PassResult[]): PassResult {
  if (results.length === 0) throw new Error("foldPasses: no rounds");
  const first = results[0]!;
  const ttfbP50Ms = medianOf(results.map((r) => r.ttfbP50Ms));
  const ttfbP99Ms = medianOf(results.map((r) => r.ttfbP99Ms));
  const firstError = results.find((r) => r.firstError !== undefined)?.firstError;
  const load: LoadResult = {
    tool: first.tool,
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    durationSec: results.reduce((sum, r) => sum + r.durationSec, 0),
    requestsPerSec: median(results.map((r) => r.requestsPerSec)),
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    ...(ttfbP50Ms !== undefined ? { ttfbP50Ms } : {}),
    ...(ttfbP99Ms !== undefined ? { ttfbP99Ms } : {}),
    ...(firstError !== undefined ? { firstError } : {}),
  };
  const { threadUsPerRequest, collector } = middleRound(results);
  return {
    ...load,
    cpuUsPerRequest: medianOf(results.map((r) => r.cpuUsPerRequest)),
    ...(threadUsPerRequest !== undefined ? { threadUsPerRequest } : {}),
    ...(collector !== undefined ? { collector } : {}),
    peakRssBytes: maxOf(results.map((r) => r.peakRssBytes)),
  };
}

/** One scenario's rounds folded pass by pass. */
export function medianOfRounds(rounds: readonly ScenarioOutcome[]): ScenarioOutcome {
  if (rounds.length === 0) throw new Error("medianOfRounds: no rounds");
  const folded: ScenarioOutcome = {};
  for (const pass of ["load", "single"] as const satisfies readonly Pass[]) {
    const results = rounds.flatMap((round) => (round[pass] ? [round[pass]] : []));
    if (results.length > 0) folded[pass] = foldPasses(results);
  }
  return folded;
}
