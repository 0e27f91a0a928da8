import { afterEach, expect, test } from "bun:test";
import { createChildGroup } from "../../src/bench/child-group.ts";
import { runScenario, settleTargets } from "../../src/bench/run-scenario.ts";
import type { Pass, Scenario } from "../../src/bench/scenarios.ts";

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

/** A server that counts the requests it answers. */
function countingServer(): { url: string; count: () => number } {
  let count = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      await request.text();
      count++;
      return Response.json({ ok: true });
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/v1/messages`, count: () => count };
}

const scenarioFor = (id: string, url: string): Scenario => ({
  id,
  kind: "path",
  bodyCase: "",
  format: "messages",
  mode: "json",
  target: "gateway",
  url,
  headers: { "content-type": "application/json" },
  body: "{}",
  passes: ["load"],
  warmupRequests: 1,
});

test("settling loads every scenario in turn, and ends once its time has passed", async () => {
  const first = countingServer();
  const second = countingServer();
  const group = createChildGroup();
  await settleTargets([scenarioFor("a", first.url), scenarioFor("b", second.url)], 2, { tool: "builtin", connections: 2, scriptDir: "/tmp", group });
  expect(first.count()).toBeGreaterThan(0);
  expect(second.count()).toBeGreaterThan(0);
});

test("no time to settle: no request at all", async () => {
  const server = countingServer();
  await settleTargets([scenarioFor("a", server.url)], 0, { tool: "builtin", connections: 2, scriptDir: "/tmp", group: createChildGroup() });
  expect(server.count()).toBe(0);
});

test.each([
  [["load", "single"] as const, "the loaded pass"],
  [["single"] as const, "the one-connection pass, where it is the only one"],
])("aroundFirstPass wraps %p's first pass alone: %s", async (passes: readonly Pass[]) => {
  const server = countingServer();
  const seen: Array<readonly [string, number]> = [];
  const outcome = await runScenario(
    { ...scenarioFor("body/100k/gateway", server.url), passes },
    {
      tool: "builtin",
      connections: 2,
      durationSec: 1,
      latencySec: 1,
      scriptDir: "/tmp",
      group: createChildGroup(),
      serverPid: process.pid,
      aroundFirstPass: (scenario) => {
        seen.push([`start ${scenario.id}`, server.count()]);
        return async () => {
          seen.push(["finish", server.count()]);
        };
      },
    },
  );
  // Started once, after the warm-up request; the first pass's requests between start and finish; the second pass's after.
  expect(seen.map(([what]) => what)).toEqual(["start body/100k/gateway", "finish"]);
  const [[, atStart], [, atFinish]] = seen as [readonly [string, number], readonly [string, number]];
  expect(atStart).toBe(1);
  expect(atFinish - atStart).toBe(outcome[passes[0]!]!.requests);
  expect(server.count() - atFinish).toBe(passes.length > 1 ? outcome[passes[1]!]!.requests : 0);
});

test("a pass's collector work is what the count grew by across it, per request: none before its warm-up's end, none after it", async () => {
  const server = countingServer();
  // The count grows with every request the server has answered: a collection of each kind, 2 ms
  // of stops and 3 KB of allocation for each.
  const count = () => {
    const n = server.count();
    return new Map([["0x1", { eden: n, full: n, stoppedMs: 2 * n, allocatedBytes: 3 * 1024 * n }]]);
  };
  const outcome = await runScenario(
    { ...scenarioFor("messages/json/gateway", server.url), passes: ["load", "single"] },
    { tool: "builtin", connections: 2, durationSec: 1, latencySec: 1, scriptDir: "/tmp", group: createChildGroup(), serverPid: process.pid, collector: count },
  );
  for (const pass of ["load", "single"] as const) {
    expect(outcome[pass]!.requests).toBeGreaterThan(0);
    expect(outcome[pass]!.collector).toEqual({ fullPer1k: 1000, edenPer1k: 1000, stoppedUsPerRequest: 2000, allocatedKbPerRequest: 3 });
  }
});

test("without a collector log, a pass says nothing of its collector", async () => {
  const server = countingServer();
  const outcome = await runScenario(scenarioFor("messages/json/gateway", server.url), {
    tool: "builtin",
    connections: 2,
    durationSec: 1,
    latencySec: 0,
    scriptDir: "/tmp",
    group: createChildGroup(),
    serverPid: process.pid,
  });
  expect(outcome.load!.collector).toBeUndefined();
});
