import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { extractTaskSignals } from "../../src/routing/extract-task-signals.ts";
import { compileEscalation, escalateEffort, NO_ESCALATION, readTurnOutcome, updateEscalation } from "../../src/routing/track-escalation.ts";
import { assistant, request, toolCall, toolResult, user } from "./request-fixtures.ts";

const rules = compileEscalation(loadConfig({}).routing.escalation);
const turn = (id: string, output: string, isError = false, args = '{"command":"bun test"}') =>
  extractTaskSignals(request([user("fix it"), assistant(toolCall(id, "Bash", args)), user(toolResult(id, output, isError))]), 8192);

describe("turn outcome", () => {
  test.each([
    ["failing tests", "12 pass\n3 fail\nRan 15 tests", "struggle"],
    ["compiler error", "src/a.ts(3,4): error TS2322: Type 'string' is not assignable", "struggle"],
    ["rust error", "error[E0308]: mismatched types", "struggle"],
    ["runtime error", "Traceback (most recent call last):\n  File \"a.py\"", "struggle"],
    ["edit that did not apply", "String to replace not found in file.", "struggle"],
    ["go test failure", "--- FAIL: TestParse (0.00s)", "struggle"],
    ["tests pass", "15 passed in 0.42s", "success"],
    ["0 failed is a success", "Ran 15 tests: 15 passed, 0 failed", "success"],
    ["edit applied", "The file src/a.ts has been updated successfully.", "success"],
    ["plain output", "README.md\nsrc\ntest", "neutral"],
  ])("%s → %s", (_name, output, outcome) => {
    expect(readTurnOutcome(turn("t1", output), rules)).toBe(outcome as "struggle");
  });

  test("a tool result flagged as an error is struggling", () => {
    expect(readTurnOutcome(turn("t1", "whatever", true), rules)).toBe("struggle");
  });

  test("the same tool call twice in a row is struggling", () => {
    const call = toolCall("t1", "Read", '{"path":"a.ts"}');
    const again = toolCall("t2", "Read", '{"path":"a.ts"}');
    const signals = extractTaskSignals(
      request([user("fix"), assistant(call), user(toolResult("t1", "text")), assistant(again), user(toolResult("t2", "text"))]),
      8192,
    );
    expect(readTurnOutcome(signals, rules)).toBe("struggle");
  });
});

describe("escalation steps", () => {
  test("up one step per struggling turn up to the limit, down on success, a retry counted once", () => {
    let state = NO_ESCALATION;
    state = updateEscalation(state, turn("a", "3 failed"), rules);
    expect(state.steps).toBe(1);
    state = updateEscalation(state, turn("a", "3 failed"), rules); // the same request again
    expect(state.steps).toBe(1);
    state = updateEscalation(state, turn("b", "error: boom"), rules);
    state = updateEscalation(state, turn("c", "error: boom"), rules);
    expect(state.steps).toBe(2); // maxSteps
    state = updateEscalation(state, turn("d", "all tests passed"), rules);
    expect(state.steps).toBe(1);
    state = updateEscalation(state, turn("e", "README.md"), rules);
    expect(state.steps).toBe(1);
    const newTurn = extractTaskSignals(request([user("next")]), 8192);
    expect(updateEscalation(state, newTurn, rules)).toBe(state);
  });

  test("disabled escalation never moves", () => {
    expect(updateEscalation(NO_ESCALATION, turn("a", "3 failed"), { ...rules, enabled: false }).steps).toBe(0);
  });

  test.each([
    ["medium", 1, "high", "high"],
    ["medium", 2, "high", "high"],
    ["low", 2, "max", "high"],
    ["off", 0, "high", "off"],
    ["max", 0, "high", "max"],
  ] as const)("%s + %i steps, ceiling %s → %s", (base, steps, ceiling, expected) => {
    expect(escalateEffort(base, steps, ceiling)).toBe(expected);
  });
});
