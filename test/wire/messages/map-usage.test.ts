import { describe, expect, test } from "bun:test";
import { ZERO_USAGE, type Usage } from "../../../src/canonical/usage.ts";
import { decodeMessagesUsage, encodeMessagesUsage } from "../../../src/wire/messages/map-usage.ts";

describe("decodeMessagesUsage", () => {
  const cases: [string, unknown, Usage, Usage][] = [
    ["plain", { input_tokens: 10, output_tokens: 5 }, ZERO_USAGE, { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 }],
    [
      "cache reads and writes are added back into input",
      { input_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 40, output_tokens_details: { thinking_tokens: 32 } },
      ZERO_USAGE,
      { inputTokens: 123, outputTokens: 40, cacheReadTokens: 100, cacheWriteTokens: 20, reasoningTokens: 32 },
    ],
    [
      "an update with only output keeps the base input and cache",
      { output_tokens: 70 },
      { inputTokens: 123, outputTokens: 1, cacheReadTokens: 100, cacheWriteTokens: 20, reasoningTokens: 0 },
      { inputTokens: 123, outputTokens: 70, cacheReadTokens: 100, cacheWriteTokens: 20, reasoningTokens: 0 },
    ],
    [
      "nulls and garbage count as absent",
      { input_tokens: null, cache_read_input_tokens: "x", output_tokens: 2 },
      { inputTokens: 50, outputTokens: 0, cacheReadTokens: 10, cacheWriteTokens: 0, reasoningTokens: 0 },
      { inputTokens: 50, outputTokens: 2, cacheReadTokens: 10, cacheWriteTokens: 0, reasoningTokens: 0 },
    ],
    ["not an object", null, ZERO_USAGE, ZERO_USAGE],
  ];
  test.each(cases)("%s", (_name, raw, base, expected) => {
    expect(decodeMessagesUsage(raw, base)).toEqual(expected);
  });
});

describe("encodeMessagesUsage", () => {
  test("input excludes cache reads and writes; thinking tokens reported", () => {
    const wire = encodeMessagesUsage({ inputTokens: 123, outputTokens: 40, cacheReadTokens: 100, cacheWriteTokens: 20, reasoningTokens: 32 });
    expect(wire).toMatchObject({
      input_tokens: 3,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 20,
      output_tokens: 40,
      output_tokens_details: { thinking_tokens: 32 },
    });
  });

  test("never negative when an upstream reports cache beyond its input", () => {
    expect(encodeMessagesUsage({ inputTokens: 5, outputTokens: 1, cacheReadTokens: 10, cacheWriteTokens: 0, reasoningTokens: 0 }).input_tokens).toBe(0);
  });

  test("round trip keeps every number", () => {
    const usage: Usage = { inputTokens: 500, outputTokens: 90, cacheReadTokens: 300, cacheWriteTokens: 50, reasoningTokens: 40 };
    expect(decodeMessagesUsage(encodeMessagesUsage(usage))).toEqual(usage);
  });
});
