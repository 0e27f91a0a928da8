import { describe, expect, test } from "bun:test";
import type { Usage } from "../../../src/canonical/usage.ts";
import { ZERO_USAGE } from "../../../src/canonical/usage.ts";
import { decodeChatUsage, encodeChatUsage } from "../../../src/wire/chat/map-usage.ts";

const cached: Usage = { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 1000, cacheWriteTokens: 50, reasoningTokens: 120 };

describe("usage mapping", () => {
  test("canonical → Chat keeps OpenAI semantics: prompt includes cached, completion includes reasoning", () => {
    expect(encodeChatUsage(cached)).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 50 },
      completion_tokens_details: { reasoning_tokens: 120 },
    });
  });

  const table: [string, unknown, Usage][] = [
    ["full OpenAI usage", encodeChatUsage(cached), cached],
    [
      "sim usage with audio fields",
      { prompt_tokens: 15, completion_tokens: 54, total_tokens: 69, prompt_tokens_details: { cached_tokens: 10, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 48 } },
      { inputTokens: 15, outputTokens: 54, cacheReadTokens: 10, cacheWriteTokens: 0, reasoningTokens: 48 },
    ],
    ["no details (compatible servers)", { prompt_tokens: 7, completion_tokens: 3 }, { ...ZERO_USAGE, inputTokens: 7, outputTokens: 3 }],
    ["null", null, ZERO_USAGE],
    ["nonsense values", { prompt_tokens: "x", completion_tokens: -4 }, ZERO_USAGE],
  ];
  for (const [name, raw, expected] of table) test(`Chat → canonical: ${name}`, () => expect(decodeChatUsage(raw)).toEqual(expected));
});
