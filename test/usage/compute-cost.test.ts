import { describe, expect, test } from "bun:test";
import type { Usage } from "../../src/canonical/usage.ts";
import { computeCost } from "../../src/usage/compute-cost.ts";

const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const usage = (input: number, output: number, read = 0, write = 0, reasoning = 0): Usage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: read,
  cacheWriteTokens: write,
  reasoningTokens: reasoning,
});

describe("computeCost", () => {
  test.each([
    ["nothing", usage(0, 0), 0],
    ["a million fresh input tokens", usage(1_000_000, 0), 3],
    ["a million output tokens (reasoning is inside output)", usage(0, 1_000_000, 0, 0, 400_000), 15],
    ["cached reads at the cached rate, not the input rate", usage(1_000_000, 0, 1_000_000), 0.3],
    ["cache writes at their own rate", usage(1_000_000, 0, 0, 1_000_000), 3.75],
    ["a mix", usage(1000, 500, 600, 100), (300 * 3 + 600 * 0.3 + 100 * 3.75 + 500 * 15) / 1e6],
  ])("%s", (_name, u, expected) => {
    expect(computeCost(u, prices)).toBeCloseTo(expected, 12);
  });
});
