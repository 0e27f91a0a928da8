import { describe, expect, test } from "bun:test";
import { percentile, percentiles } from "../../src/bench/percentiles.ts";

const oneToHundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);

describe("percentile (nearest rank, sorted input)", () => {
  test.each([
    ["p50 of 1..100", oneToHundred, 50, 50],
    ["p99 of 1..100", oneToHundred, 99, 99],
    ["p100 of 1..100", oneToHundred, 100, 100],
    ["p0 of 1..100", oneToHundred, 0, 1],
    ["p50 of one value", [7], 50, 7],
    ["p99 of one value", [7], 99, 7],
    ["p50 of two values takes the lower", [1, 2], 50, 1],
    ["p51 of two values takes the upper", [1, 2], 51, 2],
    ["p99 of ten values is the max", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99, 10],
    ["p90 of ten values", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90, 9],
  ] as const)("%s", (_name, sorted, p, expected) => {
    expect(percentile(sorted, p)).toBe(expected);
  });

  test("NaN for an empty sample", () => {
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("percentiles (unsorted, partly filled buffer)", () => {
  test.each([
    ["sorts numerically, not as strings", [10, 9, 100, 2, 1], 5, [50, 99], [9, 100]],
    ["ignores the unused tail of the buffer", [3, 1, 2, 1000, 1000], 3, [50, 100], [2, 3]],
    ["sub-millisecond latencies", [0.31, 0.12, 0.25, 0.4], 4, [50, 99], [0.25, 0.4]],
    ["empty count", [5, 6], 0, [50], [Number.NaN]],
  ] as const)("%s", (_name, values, count, ps, expected) => {
    expect(percentiles(Float64Array.from(values), count, ps)).toEqual([...expected]);
  });

  test("does not reorder the caller's buffer", () => {
    const values = Float64Array.from([3, 1, 2]);
    percentiles(values, 3, [50]);
    expect([...values]).toEqual([3, 1, 2]);
  });
});
