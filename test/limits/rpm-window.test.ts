import { describe, expect, test } from "bun:test";
import { createRpmWindow } from "../../src/limits/create-rpm-window.ts";

const T = 1_000_000_000_000;

describe.each([
  ["exact ring", 3],
  ["per-second buckets (very large limits)", 5000],
])("rpm window: %s", (_name, limit) => {
  test("counts the last minute, and says when the oldest request leaves it", () => {
    const w = createRpmWindow(limit);
    expect(w.count(T)).toBe(0);
    expect(w.oldest).toBe(T);
    w.add(T);
    w.add(T + 10_000);
    w.add(T + 20_000);
    expect(w.count(T + 30_000)).toBe(3);
    expect(w.oldest).toBe(T);
    expect(w.count(T + 60_001)).toBe(2);
    expect(w.count(T + 80_001)).toBe(0);
  });

  test("a changed limit carries the recent requests over (exact ring only)", () => {
    const w = createRpmWindow(limit);
    w.add(T);
    w.add(T + 1);
    const bigger = createRpmWindow(limit + 1, w.times());
    expect(bigger.count(T + 2)).toBe(limit <= 4096 ? 2 : 0);
  });
});

test("a limit of two billion requests per minute costs sixty buckets, not a ring of that size", () => {
  const w = createRpmWindow(2_147_483_647);
  for (let i = 0; i < 1000; i++) w.add(T + i);
  expect(w.count(T + 1000)).toBe(1000);
});
