import { describe, expect, test } from "bun:test";
import type { Usage } from "../../../src/canonical/usage.ts";
import { decodeResponsesUsage, encodeResponsesUsage } from "../../../src/wire/responses/map-usage.ts";
import type { ResponsesUsage } from "../../../src/wire/responses/shapes.ts";

const cases: { name: string; usage: Usage; wire: ResponsesUsage }[] = [
  {
    name: "cached input stays inside input_tokens; reasoning inside output_tokens",
    usage: { inputTokens: 1000, outputTokens: 300, cacheReadTokens: 800, cacheWriteTokens: 50, reasoningTokens: 120 },
    wire: {
      input_tokens: 1000,
      input_tokens_details: { cached_tokens: 800, cache_write_tokens: 50 },
      output_tokens: 300,
      output_tokens_details: { reasoning_tokens: 120 },
      total_tokens: 1300,
    },
  },
  {
    name: "zeros",
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    wire: { input_tokens: 0, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 },
  },
];

describe("Responses usage mapping", () => {
  for (const c of cases) {
    test(`encode: ${c.name}`, () => expect(encodeResponsesUsage(c.usage)).toEqual(c.wire));
    test(`decode: ${c.name}`, () => expect(decodeResponsesUsage(c.wire)).toEqual(c.usage));
  }

  test("decode tolerates missing details and junk", () => {
    expect(decodeResponsesUsage({ input_tokens: 7, output_tokens: "x" })).toEqual({
      inputTokens: 7,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
    expect(decodeResponsesUsage(undefined).inputTokens).toBe(0);
  });
});
