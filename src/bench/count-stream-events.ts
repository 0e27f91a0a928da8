import type { Scenario } from "./scenarios.ts";

/** SSE events with data in a stream's text: blocks between blank lines holding a `data:` line (comments and keep-alives are not events). */
function countSseEvents(text: string): number {
  let count = 0;
  for (const block of text.replaceAll("\r\n", "\n").split("\n\n")) {
    if (block.split("\n").some((line) => line.startsWith("data:"))) count++;
  }
  return count;
}

/** Sends the scenario's request once and counts the events of the answer the client gets. */
export async function countStreamEvents(scenario: Scenario): Promise<number> {
  const response = await fetch(scenario.url, { method: "POST", headers: scenario.headers, body: scenario.body });
  const text = await response.text();
  if (!response.ok) throw new Error(`${scenario.id}: HTTP ${response.status} ${text.slice(0, 200)}`);
  return countSseEvents(text);
}
