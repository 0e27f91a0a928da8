import { describe, expect, test } from "bun:test";
import { roundOrder } from "../../src/bench/round-order.ts";
import type { BenchTarget, Scenario, ScenarioKind } from "../../src/bench/scenarios.ts";

const scenario = (kind: ScenarioKind, id: string, target: BenchTarget): Scenario => ({
  id,
  kind,
  bodyCase: "",
  format: "messages",
  mode: "json",
  target,
  url: "http://x",
  headers: {},
  body: "{}",
  passes: ["load"],
  warmupRequests: 1,
});

const ids = (scenarios: readonly Scenario[], round: number): string[] => roundOrder(scenarios, round).map((i) => scenarios[i]!.id);

describe("roundOrder", () => {
  const scenarios = [
    scenario("path", "messages/json/bare", "bare"),
    scenario("path", "messages/json/gateway", "gateway"),
    scenario("path", "messages/json/baseline", "baseline"),
    scenario("path", "messages/json/cross", "cross"),
    scenario("long-stream", "long-stream/messages/bare", "bare"),
    scenario("long-stream", "long-stream/messages/cross", "cross"),
    scenario("long-stream", "long-stream/messages/baseline", "baseline"),
  ];

  test("odd rounds run as listed: the baseline right after its counterpart", () => {
    expect(ids(scenarios, 1)).toEqual(scenarios.map((s) => s.id));
    expect(ids(scenarios, 3)).toEqual(scenarios.map((s) => s.id));
  });

  test("even rounds run each baseline scenario before its counterpart, the rest as listed", () => {
    expect(ids(scenarios, 2)).toEqual([
      "messages/json/bare",
      "messages/json/baseline",
      "messages/json/gateway",
      "messages/json/cross",
      "long-stream/messages/bare",
      "long-stream/messages/baseline",
      "long-stream/messages/cross",
    ]);
  });

  test("without a baseline, or with one not right after its counterpart, nothing moves", () => {
    const plain = scenarios.filter((s) => s.target !== "baseline");
    expect(ids(plain, 2)).toEqual(plain.map((s) => s.id));
    const apart = [scenarios[1]!, scenarios[3]!, scenarios[2]!];
    expect(ids(apart, 2)).toEqual(apart.map((s) => s.id));
  });
});
