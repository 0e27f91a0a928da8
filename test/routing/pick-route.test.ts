import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load-config.ts";
import type { Classification } from "../../src/routing/classify-task.ts";
import { extractTaskSignals } from "../../src/routing/extract-task-signals.ts";
import { pickRoute, type PickRouteInput } from "../../src/routing/pick-route.ts";
import type { ConversationPin } from "../../src/routing/pin-store.ts";
import { NO_ESCALATION } from "../../src/routing/track-escalation.ts";
import { assistant, request, toolCall, toolResult, user } from "./request-fixtures.ts";

const config = loadConfig({});
const newTurn = extractTaskSignals(request([user("hello"), assistant("hi"), user("there is a bug")]), 8192);
const toolTurn = extractTaskSignals(request([user("hello"), assistant(toolCall("t1")), user(toolResult("t1", "fine"))]), 8192);
const ruleHit: Classification = { taskClass: "debugging", rule: "debugging-words", model: "sim-normal", effort: "high" };
const noRule: Classification = { taskClass: "general", rule: null, model: "sim-normal", effort: "medium" };
const pinB: ConversationPin = { model: "sim-normal-b", taskClass: "coding", baseEffort: "low", escalation: NO_ESCALATION };
const needs = { vision: false, tools: false, promptTokens: 100 };

const input = (overrides: Partial<PickRouteInput>): PickRouteInput => ({
  config,
  tier: "normal",
  signals: newTurn,
  pin: null,
  classification: ruleHit,
  escalation: NO_ESCALATION,
  needs,
  ...overrides,
});

describe("pickRoute", () => {
  test.each([
    ["tool result on a pin → continuation, pinned class and effort", { signals: toolTurn, pin: pinB, classification: null }, { source: "continuation", modelName: "sim-normal-b", taskClass: "coding", effort: "low" }],
    ["new turn on a pin → sticky, the new class's effort", { pin: pinB }, { source: "sticky", modelName: "sim-normal-b", taskClass: "debugging", effort: "high" }],
    ["no pin, a rule matched → rule", {}, { source: "rule", modelName: "sim-normal", rule: "debugging-words" }],
    ["no pin, no rule → default", { classification: noRule }, { source: "default", modelName: "sim-normal", effort: "medium" }],
    ["tool result without a pin → classified", { signals: toolTurn }, { source: "rule" }],
    ["pinned model no longer in the pool → classified", { pin: { ...pinB, model: "sim-smart" } }, { source: "rule", modelName: "sim-normal" }],
    ["pinned model cannot hold the prompt → classified", { pin: pinB, needs: { ...needs, promptTokens: 2_000_000 } }, { source: "rule", modelName: "sim-normal" }],
    ["escalation raises the effort, capped by the tier", { pin: pinB, escalation: { steps: 2, seen: "x" } }, { source: "sticky", effort: "high", baseEffort: "high" }],
    ["escalation on a continuation", { signals: toolTurn, pin: pinB, escalation: { steps: 2, seen: "x" } }, { source: "continuation", effort: "high", baseEffort: "low" }],
  ] as const)("%s", (_name, overrides, expected) => {
    expect(pickRoute(input(overrides as Partial<PickRouteInput>))).toMatchObject(expected);
  });

  test("a pin whose model lacks vision is left for an image request", () => {
    const models = { ...config.models, "sim-normal-b": { ...config.models["sim-normal-b"]!, vision: false } };
    const pick = pickRoute(input({ config: { ...config, models }, pin: pinB, needs: { ...needs, vision: true } }));
    expect(pick).toMatchObject({ source: "rule", modelName: "sim-normal" });
  });
});
