import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildWrkScript } from "./build-wrk-script.ts";
import type { ChildGroup } from "./child-group.ts";
import type { LoadResult } from "./load-result.ts";
import { parseWrkOutput } from "./parse-wrk-output.ts";
import { newRunText, type Scenario } from "./scenarios.ts";

/** Whether wrk is installed. */
export function hasWrk(): boolean {
  return Bun.which("wrk") !== null;
}

/**
 * Runs wrk for one scenario. Two threads: on a 2-core machine more would only take CPU from the
 * servers being measured. wrk runs in the child group so Ctrl-C stops it with everything else.
 */
export async function runWrk(
  scenario: Scenario,
  options: { connections: number; durationSec: number; scriptDir: string; group: ChildGroup },
): Promise<LoadResult> {
  const script = join(options.scriptDir, `${scenario.id.replaceAll("/", "-")}.lua`);
  writeFileSync(script, buildWrkScript(scenario, newRunText()));
  const threads = Math.min(2, options.connections);
  const child = options.group.spawn(
    `wrk ${scenario.id}`,
    ["wrk", `-t${threads}`, `-c${options.connections}`, `-d${options.durationSec}s`, "--latency", "-s", script, scenario.url],
    process.env,
  );
  const code = await child.exited;
  await child.drained;
  const output = child.output();
  if (code !== 0) throw new Error(`wrk exited with ${code}:\n${output}`);
  const summary = parseWrkOutput(output);
  const errors = summary.non2xx + summary.socketErrors;
  return {
    tool: "wrk",
    requests: summary.requests,
    durationSec: summary.durationSec,
    requestsPerSec: summary.requestsPerSec,
    p50Ms: summary.p50Ms,
    p99Ms: summary.p99Ms,
    errors,
    ...(errors > 0 ? { firstError: `${summary.non2xx} non-2xx, ${summary.socketErrors} socket errors` } : {}),
  };
}
