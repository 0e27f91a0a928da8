import { describe, expect, test } from "bun:test";
import { newRequestId } from "../../src/pipeline/new-request-id.ts";

const SHAPE = /^[0-9a-z]{8}[A-Za-z0-9]{8}$/;

describe("newRequestId", () => {
  test("16 characters: 8 of the clock in base 36, 8 random base62", () => {
    for (let i = 0; i < 1000; i++) expect(newRequestId()).toMatch(SHAPE);
  });

  test.each([
    [0, "00000000"],
    [35, "0000000z"],
    [36, "00000010"],
    [Date.UTC(2026, 10, 22, 11, 0, 0, 0), Date.UTC(2026, 10, 22, 11, 0, 0, 0).toString(36).padStart(8, "0")],
    // 36^8 ms after the epoch (2059) the prefix wraps rather than growing a ninth character.
    [36 ** 8 + 5, "00000005"],
  ])("the clock part of %p is %p", (ms, prefix) => {
    const id = newRequestId(ms);
    expect(id.slice(0, 8)).toBe(prefix);
    expect(id).toHaveLength(16);
  });

  test("ids made in a later millisecond sort after earlier ones, bytewise and by locale", () => {
    const start = Date.UTC(2026, 10, 22, 11, 0, 0, 0);
    const ids = Array.from({ length: 2000 }, (_, i) => newRequestId(start + i * 7));
    const bytewise = [...ids].sort();
    const byLocale = [...ids].sort((a, b) => a.localeCompare(b, "en-US"));
    expect(bytewise).toEqual(ids);
    expect(byLocale).toEqual(ids);
  });

  test("ids in the same millisecond differ", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newRequestId(1_800_000_000_000)));
    expect(ids.size).toBe(10_000);
  });
});
