import { afterEach, expect, test } from "bun:test";
import { createChildGroup } from "../../src/bench/child-group.ts";
import { runScenario } from "../../src/bench/run-scenario.ts";
import type { Pass, Scenario } from "../../src/bench/scenarios.ts";

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

/** A server that notes, for each request, what the test had logged by then. */
function notingServer(log: string[]): string {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      await request.text();
      log.push("request");
      return Response.json({ ok: true });
    },
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}/v1/messages`;
}

const scenarioWith = (url: string, passes: readonly Pass[]): Scenario => ({
  id: "body/100k/gateway",
  kind: "body",
  bodyCase: "100k",
  format: "messages",
  mode: "json",
  target: "gateway",
  url,
  headers: { "content-type": "application/json" },
  body: "{}",
  passes,
  warmupRequests: 1,
});

/** The log squeezed: runs of requests as one entry. */
const squeezed = (log: readonly string[]): string[] => log.filter((entry, i) => entry !== "request" || log[i - 1] !== "request");

test.each([
  [["load", "single"] as const, "the loaded pass"],
  [["single"] as const, "the one-connection pass, where it is the only one"],
])("aroundFirstPass wraps %p's first pass alone: %s", async (passes) => {
  const log: string[] = [];
  const url = notingServer(log);
  const outcome = await runScenario(scenarioWith(url, passes), {
    tool: "builtin",
    connections: 2,
    durationSec: 1,
    latencySec: 1,
    scriptDir: "/tmp",
    group: createChildGroup(),
    serverPid: process.pid,
    aroundFirstPass: (scenario) => {
      log.push(`start ${scenario.id}`);
      return async () => {
        log.push("finish");
      };
    },
  });
  // The warm-up request, then the wrapped pass, then the second pass (if any) after the wrapper has finished.
  expect(squeezed(log)).toEqual(["request", "start body/100k/gateway", "request", "finish", ...(passes.length > 1 ? ["request"] : [])]);
  for (const pass of passes) expect(outcome[pass]?.requests).toBeGreaterThan(0);
});
