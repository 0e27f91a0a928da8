import { describe, expect, test } from "bun:test";
import { createChildGroup } from "../../src/bench/child-group.ts";
import { runSoak } from "../../src/bench/run-soak.ts";
import type { Scenario } from "../../src/bench/scenarios.ts";
import { varyingScenario } from "./varying-scenario.ts";

const scenarioAt = (url: string, id: string): Scenario => varyingScenario(url, id, JSON.stringify({ path: id, text: "Conversation @@. Hello" }), "@@");

describe("runSoak", () => {
  test("runs the scenarios in turn until the time is up, each request a body of its own, reading the server's memory and CPU as it goes", async () => {
    const seen = new Map<string, string[]>();
    // This process serves: its own memory and CPU are what the soak reads.
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const { path, text } = (await request.json()) as { path: string; text: string };
        seen.set(path, [...(seen.get(path) ?? []), text]);
        return Response.json({ ok: true });
      },
    });
    const group = createChildGroup();
    const minutes: number[] = [];
    try {
      const url = `http://127.0.0.1:${server.port}/`;
      const result = await runSoak({
        scenarios: [scenarioAt(url, "a"), scenarioAt(url, "b")],
        // 3.5 s in passes of 1 s: three passes, and half a second too short for a fourth.
        minutes: 3.5 / 60,
        passSec: 1,
        connections: 2,
        tool: "builtin",
        scriptDir: "/nonexistent",
        group,
        gatewayPid: process.pid,
        onMinute: (minute) => minutes.push(minute),
      });
      expect(result.passes.map((p) => p.scenarioId)).toEqual(["a", "b", "a"]);
      for (const pass of result.passes) {
        expect(pass.requests).toBeGreaterThan(0);
        expect(pass.errors).toBe(0);
        expect(pass.cpuMs).toBeGreaterThanOrEqual(0);
      }
      expect(result.passes[1]!.startSec).toBeGreaterThanOrEqual(1);
      expect(minutes).toEqual([1]);
      // A sample at the start, one a second, one at the end.
      expect(result.samples.length).toBeGreaterThanOrEqual(4);
      expect(result.samples.every((s) => s.rssBytes > 0)).toBe(true);
      expect(result.samples.at(-1)!.atSec).toBeGreaterThanOrEqual(3);
      const texts = [...(seen.get("a") ?? []), ...(seen.get("b") ?? [])];
      expect(texts.length).toBe(result.passes.reduce((sum, p) => sum + p.requests, 0));
      expect(new Set(texts).size).toBe(texts.length);
      // Each pass its own text before the request's number, so no pass repeats another's conversations.
      expect(texts.every((t) => /^Conversation [0-9a-f]{8}-\d+\. Hello$/.test(t))).toBe(true);
    } finally {
      await group.stopAll();
      server.stop(true);
    }
  });
});
