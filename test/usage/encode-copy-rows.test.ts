import { describe, expect, test } from "bun:test";
import type { NewUsageRecord } from "../../src/db/schema/usage.ts";
import { COPY_COLUMNS, encodeCopyRows } from "../../src/usage/encode-copy-rows.ts";

const base: NewUsageRecord = {
  requestId: "req_1",
  accountId: "acct_1",
  keyId: "key_1",
  createdAt: new Date(Date.UTC(2026, 10, 22, 5, 6, 7, 890)),
  endpoint: "messages",
  tier: "normal",
  model: "sim-normal",
  effort: "medium",
  source: "rule",
  cacheHit: false,
  status: 200,
  latencyMs: 12.5,
  ttfbMs: 3.25,
  inputTokens: 100,
  outputTokens: 20,
  cacheReadTokens: 5,
  cacheWriteTokens: 6,
  reasoningTokens: 7,
  costUsd: 0.0015,
};

const fields = (row: Partial<NewUsageRecord>): string[] => encodeCopyRows([{ ...base, ...row }]).slice(0, -1).split("\t");
const column = (name: (typeof COPY_COLUMNS)[number]): number => COPY_COLUMNS.indexOf(name);

describe("encodeCopyRows", () => {
  test("one tab-separated line per row, in COPY_COLUMNS order", () => {
    expect(encodeCopyRows([base, { ...base, requestId: "req_2" }])).toBe(
      "req_1\tacct_1\tkey_1\t2026-11-22T05:06:07.890Z\tmessages\tnormal\tsim-normal\tmedium\trule\tf\t200\t12.5\t3.25\t100\t20\t5\t6\t7\t0.0015\tf\n" +
        "req_2\tacct_1\tkey_1\t2026-11-22T05:06:07.890Z\tmessages\tnormal\tsim-normal\tmedium\trule\tf\t200\t12.5\t3.25\t100\t20\t5\t6\t7\t0.0015\tf\n",
    );
    expect(fields({})).toHaveLength(COPY_COLUMNS.length);
  });

  test("no rows, no text", () => {
    expect(encodeCopyRows([])).toBe("");
  });

  test.each([
    ["model", "a\tb", "a\\tb"],
    ["model", "line\nbreak", "line\\nbreak"],
    ["model", "carriage\rreturn", "carriage\\rreturn"],
    ["model", "back\\slash", "back\\\\slash"],
    ["model", "\\N", "\\\\N"],
    ["model", null, "\\N"],
    ["effort", undefined, "\\N"],
    ["source", null, "\\N"],
  ] as const)("%s %p is written as %p", (name, value, expected) => {
    expect(fields({ [name]: value })[column(name)]).toBe(expected);
  });

  test.each([
    ["cacheHit", true, "cache_hit", "t"],
    ["cacheHit", undefined, "cache_hit", "f"],
    ["tokensEstimated", true, "tokens_estimated", "t"],
    ["tokensEstimated", undefined, "tokens_estimated", "f"],
    ["ttfbMs", null, "ttfb_ms", "\\N"],
    ["ttfbMs", Number.NaN, "ttfb_ms", "\\N"],
    ["inputTokens", undefined, "input_tokens", "0"],
    ["reasoningTokens", Number.POSITIVE_INFINITY, "reasoning_tokens", "0"],
    ["costUsd", undefined, "cost_usd", "0"],
    ["latencyMs", Number.NaN, "latency_ms", "0"],
  ] as const)("%s %p: column %s is %p (the table's default, or null where it allows one)", (field, value, name, expected) => {
    expect(fields({ [field]: value })[column(name)]).toBe(expected);
  });
});
