import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { listCandidates, type ModelRequirements } from "../../src/routing/list-candidates.ts";

const config = loadConfig({});
const base = { ...config.models["sim-normal"]!, apis: ["messages", "chat", "responses"] as ("messages" | "chat" | "responses")[] };
const models = {
  a: { ...base, contextWindow: 100_000 },
  b: { ...base, vision: false },
  c: { ...base, tools: false },
  d: { ...base, maxOutputTokens: 8_000 },
};
const pool = ["a", "b", "c", "d"];
const needs: ModelRequirements = { vision: false, tools: false, promptTokens: 1_000 };
const names = (overrides: Partial<ModelRequirements>, chosen = "a", isAvailable?: (m: string) => boolean) =>
  listCandidates({ chosen, pool, models, needs: { ...needs, ...overrides }, isAvailable }).map((c) => c.name);

describe("listCandidates", () => {
  test.each([
    ["chosen first, then the pool in order", {}, "c", ["c", "a", "b", "d"]],
    ["vision", { vision: true }, "a", ["a", "c", "d"]],
    ["tools", { tools: true }, "a", ["a", "b", "d"]],
    ["context size", { promptTokens: 200_000 }, "a", ["b", "c", "d"]],
    ["output size", { maxOutputTokens: 16_000 }, "a", ["a", "b", "c"]],
    ["api", { apis: ["chat"] }, "a", ["a", "b", "c", "d"]],
    ["nothing fits", { promptTokens: 2_000_000 }, "a", []],
  ] as const)("%s", (_name, overrides, chosen, expected) => {
    expect(names(overrides as Partial<ModelRequirements>, chosen)).toEqual([...expected]);
  });

  test("open breakers are left out, unless every capable model is open", () => {
    expect(names({}, "a", (m) => m !== "a" && m !== "c")).toEqual(["b", "d"]);
    expect(names({ tools: true }, "a", () => false)).toEqual(["a", "b", "d"]);
  });
});
