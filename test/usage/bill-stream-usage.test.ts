import { describe, expect, test } from "bun:test";
import type { Usage } from "../../src/canonical/usage.ts";
import type { StreamTokens } from "../../src/canonical/stream-tokens.ts";
import { billStreamUsage } from "../../src/usage/bill-stream-usage.ts";

const usage = (input: number, output: number, extra: Partial<Usage> = {}): Usage => ({ inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, ...extra });
const counted = () => 77;

describe("billStreamUsage", () => {
  test.each<[string, StreamTokens, Usage]>([
    ["the upstream's final usage, as it is", { usage: usage(10, 20, { reasoningTokens: 5 }), sentTokens: () => 3 }, usage(10, 20, { reasoningTokens: 5 })],
    ["nothing reported: input counted from the request, output from what was sent", { sentTokens: () => 12 }, usage(77, 12, { estimated: true })],
    ["all zeros is not a report", { usage: usage(0, 0), sentTokens: () => 12 }, usage(77, 12, { estimated: true })],
    [
      "Messages start: its input (and cache) tokens, the output counted",
      { startUsage: usage(50, 1, { cacheReadTokens: 30 }), sentTokens: () => 9 },
      usage(50, 9, { cacheReadTokens: 30, estimated: true }),
    ],
    ["never less output than the upstream said so far", { startUsage: usage(50, 35), sentTokens: () => 9 }, usage(50, 35, { estimated: true })],
    ["a start usage without input: counted from the request", { startUsage: usage(0, 1), sentTokens: () => 4 }, usage(77, 4, { estimated: true })],
    ["a usage marked estimated is only what the upstream said so far", { usage: usage(50, 1, { estimated: true }), sentTokens: () => 6 }, usage(50, 6, { estimated: true })],
  ])("%s", (_name, end, expected) => {
    expect(billStreamUsage(end, counted)).toEqual(expected);
  });
});
