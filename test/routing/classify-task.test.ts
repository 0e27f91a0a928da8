import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Tier } from "../../src/canonical/tier.ts";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { ConfigError, loadConfig, validateFileConfig } from "../../src/config/load-config.ts";
import type { Config, FileConfig } from "../../src/config/schema.ts";
import { classifyTask } from "../../src/routing/classify-task.ts";
import { compileRoutingRules } from "../../src/routing/compile-routing-rules.ts";
import { extractTaskSignals } from "../../src/routing/extract-task-signals.ts";
import { readTextFeatures } from "../../src/routing/read-text-features.ts";
import { assistant, bashTool, image, request, toolCall, toolResult, user } from "./request-fixtures.ts";

const config = loadConfig({});
const rules = compileRoutingRules(config.routing);

function classify(text: string, tier: Tier = "normal", extra: { tools?: boolean; images?: boolean; cfg?: Config } = {}) {
  const cfg = extra.cfg ?? config;
  const req = request([extra.images ? user(text, image) : user(text)], { tools: extra.tools ? [bashTool] : [] });
  return classifyTask(cfg, extra.cfg ? compileRoutingRules(cfg.routing) : rules, tier, extractTaskSignals(req, cfg.routing.scanChars));
}

const TRACE = `TypeError: Cannot read properties of undefined (reading 'x')\n    at run (/app/src/main.ts:10:5)\n    at main (/app/src/main.ts:20:3)`;
const PY_TRACE = `Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    main()\nValueError: bad`;
const DIFF = "Please review:\ndiff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,2 @@\n-a\n+b";
const CODE = "Make this faster:\n```ts\nfor (const x of xs) total += x;\n```";

describe("rules classifier (default config)", () => {
  const cases: Array<[string, string, Tier, boolean, string, string | null, string]> = [
    // [name, text, tier, tools, class, rule, effort]
    ["title chore", "Write a 5-10 word title for this conversation.", "normal", true, "chore", "title-or-summary", "low"],
    ["summary chore on fast", "Summarize the discussion in one sentence.", "fast", false, "chore", "title-or-summary", "off"],
    ["js stack trace", `Why does this happen?\n${TRACE}`, "normal", true, "debugging", "stack-trace", "high"],
    ["python stack trace", PY_TRACE, "smart", true, "debugging", "stack-trace", "high"],
    ["debugging words", "The login test is failing since yesterday, can you look?", "normal", true, "debugging", "debugging-words", "high"],
    ["planning", "Help me plan the architecture of the billing service before we start.", "smart", true, "planning", "planning-words", "max"],
    ["planning capped on normal", "Help me plan the architecture of the billing service before we start.", "normal", true, "planning", "planning-words", "high"],
    ["diff", DIFF, "normal", true, "coding", "diff", "medium"],
    ["code", CODE, "smart", true, "coding", "code", "high"],
    ["short question", "What is a monad?", "normal", false, "question", "short-question", "low"],
    ["short question with tools is not", "What is a monad?", "normal", true, "general", null, "medium"],
    ["nothing matches", "Add a dark mode toggle to the settings page and wire it to the theme store.", "smart", true, "general", null, "high"],
    ["debug capped on fast", "There is a bug in the parser", "fast", true, "debugging", "debugging-words", "low"],
  ];
  test.each(cases)("%s", (_name, text, tier, tools, taskClass, rule, effort) => {
    const result = classify(text, tier, { tools });
    expect({ taskClass: result.taskClass, rule: result.rule, effort: result.effort as string }).toEqual({ taskClass, rule, effort });
    expect(config.tiers[tier].models).toContain(result.model);
  });

  test("images make a short question a general task", () => {
    expect(classify("What is this?", "normal", { images: true }).rule).toBeNull();
  });

  test("a rule's per-tier model and effort win, a class's preference picks from the pool", () => {
    const file = structuredClone(DEFAULT_CONFIG) as FileConfig & { routing: NonNullable<FileConfig["routing"]> };
    file.routing.rules!.unshift({ name: "pin-b", class: "coding", when: { keywords: ["banana"] }, tiers: { normal: { model: "sim-normal-b", effort: "max" } } });
    file.routing.classes!.debugging = { ...file.routing.classes!.debugging!, prefer: ["sim-smart-b", "sim-normal-b"] };
    const cfg = { ...config, routing: { ...config.routing, ...file.routing } } as Config;
    expect(classify("banana split", "normal", { cfg })).toMatchObject({ rule: "pin-b", model: "sim-normal-b", effort: "high" });
    expect(classify("there is a bug", "smart", { cfg })).toMatchObject({ model: "sim-smart-b" });
    expect(classify("there is a bug", "normal", { cfg })).toMatchObject({ model: "sim-normal-b" });
  });

  test("a prompt filling half the smallest context window is long-context", () => {
    const big = "word ".repeat(600_000);
    expect(classify(`please read ${big}`, "normal")).toMatchObject({ taskClass: "long-context", rule: "large-prompt" });
  });
});

describe("building blocks", () => {
  test("keywords match whole words and phrases, case-insensitively", () => {
    const file = structuredClone(DEFAULT_CONFIG) as FileConfig & { routing: NonNullable<FileConfig["routing"]> };
    file.routing.rules!.unshift({ name: "words", class: "chore", when: { keywords: ["bug", "not working", "tl;dr"] } });
    const cfg = { ...config, routing: { ...config.routing, ...file.routing } } as Config;
    const matches = (text: string) => classify(text, "normal", { cfg }).rule === "words";
    expect([matches("A BUG here"), matches("debugger"), matches("it is not\nworking"), matches("TL;DR please")]).toEqual([true, false, true, true]);
  });

  test.each([
    ["const x = 1;", { code: true, stackTrace: false, diff: false }],
    ["hello there", { code: false, stackTrace: false, diff: false }],
    [PY_TRACE, { code: false, stackTrace: true, diff: false }],
    ["@@ -1 +1 @@\n-a\n+b", { code: false, stackTrace: false, diff: true }],
  ])("text features of %p", (text, features) => {
    expect(readTextFeatures(text)).toEqual(features);
  });

  test("signals: newest user text, depth, tools, bounded text, tool results, repeats", () => {
    const req = request(
      [
        user("first task"),
        assistant("ok", toolCall("t1")),
        user(toolResult("t1", "out")),
        assistant(toolCall("t2")),
        user(toolResult("t2", "x".repeat(50_000), true)),
      ],
      { tools: [bashTool], system: [{ type: "text", text: "s".repeat(400) }] },
    );
    const s = extractTaskSignals(req, 1000);
    expect(s).toMatchObject({ text: "first task", depth: 1, toolCount: 1, lastIsToolResult: true, repeatedToolCall: true, hasImages: false });
    expect(s.toolResults).toHaveLength(1);
    expect(s.toolResults[0]!.isError).toBe(true);
    expect(s.toolResults[0]!.text.length).toBeLessThan(1010);
    expect(s.promptTokens).toBeGreaterThan(12_500);
    const long = extractTaskSignals(request([user("y".repeat(20_000))]), 1000);
    expect([long.text.length, long.textChars]).toEqual([1000, 20_000]);
  });
});

describe("routing config", () => {
  const withRouting = (routing: unknown) => ({ ...structuredClone(DEFAULT_CONFIG), routing });
  test.each([
    ["unknown class", { rules: [{ name: "r", class: "nope", when: {} }] }, /\/routing\/rules\/0\/class: unknown class "nope"/],
    ["bad pattern", { rules: [{ name: "r", class: "chore", when: { patterns: ["("] } }] }, /\/routing\/rules\/0\/when\/patterns\/0: not a valid regular expression/],
    ["model outside the pool", { rules: [{ name: "r", class: "chore", when: {}, tiers: { fast: { model: "sim-max" } } }] }, /rules\/0\/tiers\/fast\/model: "sim-max" is not in the pool/],
    ["unknown preferred model", { classes: { ...DEFAULT_CONFIG.routing!.classes, chore: { description: "", prefer: ["ghost"] } } }, /classes\/chore\/prefer\/0: unknown model "ghost"/],
    ["bad escalation pattern", { escalation: { ...DEFAULT_CONFIG.routing!.escalation!, strugglePatterns: ["["] } }, /escalation\/strugglePatterns\/0/],
    ["unknown field", { classifier: { kind: "rules", llmDeadlineMs: 1, extra: 1 } }, /routing\/classifier/],
  ])("%s is refused at load", (_name, routing, message) => {
    expect(() => validateFileConfig(withRouting(routing), "test")).toThrow(ConfigError);
    expect(() => validateFileConfig(withRouting(routing), "test")).toThrow(message);
  });

  test("a partial routing section is completed with the defaults", () => {
    const file = validateFileConfig(withRouting({ breaker: { failureThreshold: 2, coolDownMs: 5 } }), "test");
    expect(file.routing?.breaker?.failureThreshold).toBe(2);
    const path = join(import.meta.dir, "..", "..", "examples", "config.json");
    expect(loadConfig({ ROUTELANE_CONFIG: path }).routing).toEqual(config.routing);
    expect(config.routing).toEqual(DEFAULT_CONFIG.routing as Config["routing"]);
  });
});
