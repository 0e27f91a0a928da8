import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load-config.ts";
import type { Config } from "../../src/config/schema.ts";
import { classifyWithLlm, type AskClass } from "../../src/routing/classify-with-llm.ts";
import { compileRoutingRules } from "../../src/routing/compile-routing-rules.ts";
import { extractTaskSignals } from "../../src/routing/extract-task-signals.ts";
import { request, user } from "./request-fixtures.ts";

const base = loadConfig({});
const config: Config = { ...base, routing: { ...base.routing, classifier: { kind: "llm", llmDeadlineMs: 30 } } };
const rules = compileRoutingRules(config.routing);
const signals = extractTaskSignals(request([user("There is a bug in the parser")]), 8192);

describe("llm classifier", () => {
  test("the model's class decides model and effort; the prompt lists the classes and the task", async () => {
    let seen: [string, number] | undefined;
    const ask: AskClass = async (prompt, deadline) => {
      seen = [prompt, deadline];
      return "Planning.";
    };
    const result = await classifyWithLlm(config, rules, "smart", signals, ask);
    expect(result).toEqual({ taskClass: "planning", rule: "llm", model: "sim-smart", effort: "max" });
    expect(seen![1]).toBe(30);
    expect(seen![0]).toContain("- debugging: ");
    expect(seen![0]).toContain("There is a bug in the parser");
  });

  test.each([
    ["a late answer", () => new Promise<string>((resolve) => setTimeout(() => resolve("planning"), 200))],
    ["no answer", async () => null],
    ["an unknown class", async () => "astrology"],
    ["a failing call", async () => Promise.reject(new Error("upstream down"))],
  ])("%s falls back to the rules", async (_name, ask) => {
    const started = performance.now();
    const result = await classifyWithLlm(config, rules, "normal", signals, ask as AskClass);
    expect(result).toMatchObject({ taskClass: "debugging", rule: "debugging-words" });
    expect(performance.now() - started).toBeLessThan(150);
  });

  test("answers are read for the first known class name; none is no class", async () => {
    const classOf = async (answer: string) => (await classifyWithLlm(config, rules, "normal", signals, async () => answer)).taskClass;
    expect([await classOf("class: Long-Context"), await classOf("none")]).toEqual(["long-context", "debugging"]);
  });

  test("the prompt holds at most a bounded part of the task", async () => {
    const long = extractTaskSignals(request([user("z".repeat(100_000))]), 8192);
    let prompt = "";
    await classifyWithLlm(config, rules, "normal", long, async (text) => {
      prompt = text;
      return "general";
    });
    expect(prompt.length).toBeGreaterThan(0);
    expect(prompt.length).toBeLessThan(4_000);
  });
});
