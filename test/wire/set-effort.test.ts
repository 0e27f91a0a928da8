import { describe, expect, test } from "bun:test";
import type { Effort } from "../../src/canonical/effort.ts";
import type { ModelConfig } from "../../src/config/schema.ts";
import { setChatEffort } from "../../src/wire/chat/set-effort.ts";
import { setMessagesEffort } from "../../src/wire/messages/set-effort.ts";
import { setResponsesEffort } from "../../src/wire/responses/set-effort.ts";

const model = (overrides: Partial<ModelConfig>): ModelConfig => ({
  provider: "sim",
  upstreamId: "m",
  apis: ["messages"],
  contextWindow: 200_000,
  maxOutputTokens: 64_000,
  vision: true,
  tools: true,
  efforts: ["off", "low", "medium", "high", "max"],
  thinking: "adaptive",
  prices: { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 },
  ...overrides,
});
const adaptive = model({});
const manual = model({ thinking: "manual", efforts: ["off", "low", "medium", "high"] });
const none = model({ thinking: "none", efforts: ["off"] });
const noOff = model({ efforts: ["low", "medium", "high"] });

type Case = [string, Record<string, unknown>, Effort, ModelConfig, Record<string, unknown>, Effort];

describe("setMessagesEffort", () => {
  const cases: Case[] = [
    ["adaptive: replaces manual thinking and client effort", { max_tokens: 1000, thinking: { type: "enabled", budget_tokens: 2000 }, output_config: { effort: "low", format: { type: "json_schema" } } }, "high", adaptive, { max_tokens: 1000, thinking: { type: "adaptive" }, output_config: { effort: "high", format: { type: "json_schema" } } }, "high"],
    ["adaptive keeps the client's display", { max_tokens: 1000, thinking: { type: "adaptive", display: "summarized" } }, "low", adaptive, { max_tokens: 1000, thinking: { type: "adaptive", display: "summarized" }, output_config: { effort: "low" } }, "low"],
    ["off disables and drops effort", { max_tokens: 10, thinking: { type: "adaptive" }, output_config: { effort: "max" } }, "off", adaptive, { max_tokens: 10, thinking: { type: "disabled" } }, "off"],
    ["off on a model that cannot disable steps up to low", { max_tokens: 10 }, "off", noOff, { max_tokens: 10, thinking: { type: "adaptive" }, output_config: { effort: "low" } }, "low"],
    ["manual: budget below max_tokens", { max_tokens: 32000 }, "medium", manual, { max_tokens: 32000, thinking: { type: "enabled", budget_tokens: 4096 } }, "medium"],
    ["manual: raises max_tokens to fit the budget", { max_tokens: 1000 }, "medium", manual, { max_tokens: 5096, thinking: { type: "enabled", budget_tokens: 4096 } }, "medium"],
    ["manual: max steps down to the model's highest", { max_tokens: 64000 }, "max", manual, { max_tokens: 64000, thinking: { type: "enabled", budget_tokens: 16384 } }, "high"],
    ["manual: output limit caps the raise, the budget gives way", { max_tokens: 4000 }, "high", model({ thinking: "manual", maxOutputTokens: 8000 }), { max_tokens: 8000, thinking: { type: "enabled", budget_tokens: 4000 } }, "high"],
    ["manual: no room for 1024 → disabled", { max_tokens: 500 }, "low", model({ thinking: "manual", maxOutputTokens: 1000 }), { max_tokens: 500, thinking: { type: "disabled" } }, "off"],
    ["no thinking support: fields removed", { max_tokens: 10, thinking: { type: "enabled", budget_tokens: 2000 }, output_config: { effort: "high" } }, "high", none, { max_tokens: 10 }, "off"],
  ];
  for (const [name, body, wanted, m, expected, effort] of cases) {
    test(name, () => {
      const copy = structuredClone(body);
      expect(setMessagesEffort(copy, wanted, m).effort).toBe(effort);
      expect(copy).toEqual(expected);
    });
  }
});

describe("setChatEffort and setResponsesEffort", () => {
  const chat: Case[] = [
    ["replaces the client's value", { reasoning_effort: "low" }, "high", adaptive, { reasoning_effort: "high" }, "high"],
    ["off → none", {}, "off", adaptive, { reasoning_effort: "none" }, "off"],
    ["max → max", {}, "max", adaptive, { reasoning_effort: "max" }, "max"],
    ["max on a model without it → high", {}, "max", manual, { reasoning_effort: "high" }, "high"],
    ["non-reasoning model: removed", { reasoning_effort: "high" }, "high", none, {}, "off"],
  ];
  for (const [name, body, wanted, m, expected, effort] of chat) {
    test(`chat: ${name}`, () => {
      const copy = structuredClone(body);
      expect(setChatEffort(copy, wanted, m).effort).toBe(effort);
      expect(copy).toEqual(expected);
    });
  }
  const responses: Case[] = [
    ["replaces effort, keeps summary", { reasoning: { effort: "low", summary: "auto" } }, "medium", adaptive, { reasoning: { effort: "medium", summary: "auto" } }, "medium"],
    ["adds reasoning when absent", {}, "off", adaptive, { reasoning: { effort: "none" } }, "off"],
    ["non-reasoning model keeps other fields", { reasoning: { effort: "high", summary: "auto" } }, "high", none, { reasoning: { summary: "auto" } }, "off"],
    ["non-reasoning model drops an empty reasoning", { reasoning: { effort: "high" } }, "high", none, {}, "off"],
  ];
  for (const [name, body, wanted, m, expected, effort] of responses) {
    test(`responses: ${name}`, () => {
      const copy = structuredClone(body);
      expect(setResponsesEffort(copy, wanted, m).effort).toBe(effort);
      expect(copy).toEqual(expected);
    });
  }
});
