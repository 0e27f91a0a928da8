import { counterpartOf } from "./compare-with-baseline.ts";
import type { Scenario } from "./scenarios.ts";

/**
 * The order the scenarios run in, round `round` (from 1): as listed, but in every second round each
 * baseline scenario goes before this checkout's counterpart, which it otherwise follows. Run second
 * every time, the baseline read more CPU a request than the gateway on a row whose code the two
 * shared (the JSON row: this checkout ÷ baseline 0.76-0.98, median 0.93, in 5 of 5 rounds of one
 * run): an order that favours one side would be read as a change.
 */
export function roundOrder(scenarios: readonly Scenario[], round: number): number[] {
  const order = scenarios.map((_, i) => i);
  if (round % 2 === 1) return order;
  for (let i = 1; i < order.length; i++) {
    const scenario = scenarios[order[i]!]!;
    if (scenario.target === "baseline" && scenarios[order[i - 1]!]!.id === counterpartOf(scenario)) [order[i - 1], order[i]] = [order[i]!, order[i - 1]!];
  }
  return order;
}
