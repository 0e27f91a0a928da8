import { describe, expect, test } from "bun:test";
import { fitThinkingConstraints } from "../../../src/wire/messages/fit-thinking-constraints.ts";

type Case = [string, Record<string, unknown>, Record<string, unknown>, number];

const cases: Case[] = [
  ["thinking off: untouched", { thinking: { type: "disabled" }, tool_choice: { type: "any" }, temperature: 0.2 }, { thinking: { type: "disabled" }, tool_choice: { type: "any" }, temperature: 0.2 }, 0],
  ["no thinking: untouched", { tool_choice: { type: "tool", name: "f" }, top_k: 5 }, { tool_choice: { type: "tool", name: "f" }, top_k: 5 }, 0],
  [
    "adaptive: forced tool relaxed to auto keeping the parallel flag",
    { thinking: { type: "adaptive" }, tool_choice: { type: "tool", name: "f", disable_parallel_tool_use: true } },
    { thinking: { type: "adaptive" }, tool_choice: { type: "auto", disable_parallel_tool_use: true } },
    1,
  ],
  [
    "enabled: sampling the API refuses is removed",
    { thinking: { type: "enabled", budget_tokens: 1024 }, tool_choice: { type: "auto" }, temperature: 0.5, top_k: 3, top_p: 0.5 },
    { thinking: { type: "enabled", budget_tokens: 1024 }, tool_choice: { type: "auto" } },
    3,
  ],
  ["allowed sampling stays", { thinking: { type: "adaptive" }, temperature: 1, top_p: 0.97 }, { thinking: { type: "adaptive" }, temperature: 1, top_p: 0.97 }, 0],
];

describe("fitThinkingConstraints", () => {
  test.each(cases)("%s", (_name, body, expected, warnings) => {
    const got = fitThinkingConstraints(body);
    expect(body).toEqual(expected);
    expect(got).toHaveLength(warnings);
  });
});
