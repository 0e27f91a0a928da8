import { median } from "./median-of-rounds.ts";
import type { ScenarioOutcome } from "./run-scenario.ts";
import type { Scenario } from "./scenarios.ts";

/** One scenario's CPU per request on this checkout's gateway against the baseline checkout's, round by round. */
export interface BaselineRounds {
  /** This checkout's scenario (`messages/stream/gateway`, `long-stream/messages/cross`, …). */
  readonly scenarioId: string;
  /** This checkout's CPU per request ÷ the baseline's, one a round in which both were measured, in round order. */
  readonly ratios: readonly number[];
  /** Their median: under 1, this checkout cost less. */
  readonly median: number | undefined;
}

/**
 * This checkout's scenario that a baseline scenario ran beside, in the same round: the same-format
 * path for the path rows and the big conversations, the translated path for the long streams.
 */
export function counterpartOf(baseline: Scenario): string {
  const prefix = baseline.id.slice(0, baseline.id.lastIndexOf("/"));
  return `${prefix}/${baseline.kind === "long-stream" || baseline.kind === "trickled-stream" ? "cross" : "gateway"}`;
}

/**
 * With `--baseline`, each of the baseline's scenarios beside this checkout's, round by round (the
 * pass each reports its CPU from: the loaded one, or the one-connection pass of the big
 * conversations). Rounds run the two back to back, so a round's ratio leaves out what moved the
 * whole machine between rounds; whether they agree, round after round, is what tells a change from
 * the noise, which medians of each alone do not show.
 */
export function compareWithBaseline(measured: ReadonlyArray<{ readonly scenario: Scenario; readonly rounds: readonly ScenarioOutcome[] }>): BaselineRounds[] {
  const byId = new Map(measured.map((entry) => [entry.scenario.id, entry]));
  const rows: BaselineRounds[] = [];
  for (const { scenario, rounds } of measured) {
    if (scenario.target !== "baseline") continue;
    const ours = byId.get(counterpartOf(scenario));
    if (!ours) continue;
    const pass = scenario.passes[0]!;
    const ratios: number[] = [];
    for (const [round, outcome] of rounds.entries()) {
      const theirs = outcome[pass]?.cpuUsPerRequest;
      const mine = ours.rounds[round]?.[pass]?.cpuUsPerRequest;
      if (theirs !== undefined && mine !== undefined && theirs > 0) ratios.push(mine / theirs);
    }
    rows.push({ scenarioId: ours.scenario.id, ratios, median: ratios.length === 0 ? undefined : median(ratios) });
  }
  return rows;
}
