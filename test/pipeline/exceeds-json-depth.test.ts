import { describe, expect, test } from "bun:test";
import { exceedsJsonDepth } from "../../src/pipeline/exceeds-json-depth.ts";
import { seededRandom, type Json } from "../helpers/seeded-random.ts";

/** Strings full of what could fool a scanner: brackets, quotes, runs of backslashes. */
const TRICKY = ["[", "]", "{", "}", '"', "\\", '\\"', "\\\\", '\\\\"', "[[[{{", "a", "é", "🚀", "\u0000"];

function depthOf(value: Json): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((max, child) => Math.max(max, depthOf(child)), 0);
}

describe("exceedsJsonDepth agrees with the parsed document's depth", () => {
  test("1,000 generated documents, limits around their depth (fixed seed)", () => {
    const next = seededRandom(42);
    const int = (n: number) => Math.floor(next() * n);
    const string = () => Array.from({ length: int(6) }, () => TRICKY[int(TRICKY.length)]!).join("");
    const value = (depth: number, target: number): Json => {
      if (depth >= target) return [null, true, 1.5, string()][int(4)]!;
      const size = 1 + int(3);
      // The first child reaches the target depth; its siblings stay shallow, so a document grows
      // with its depth, not exponentially.
      const children = Array.from({ length: size }, (_, i) => value(depth + 1, i === 0 ? target : Math.min(target, depth + 1 + int(3))));
      return next() < 0.5 ? children : Object.fromEntries(children.map((child) => [string(), child]));
    };
    for (let i = 0; i < 1000; i++) {
      const doc = value(0, int(40));
      const text = JSON.stringify(doc, null, next() < 0.3 ? 1 : undefined);
      const depth = depthOf(doc);
      for (const limit of [depth - 1, depth, depth + 1]) {
        if (limit < 0) continue;
        expect(exceedsJsonDepth(text, limit), `${text.slice(0, 120)} (depth ${depth}, limit ${limit})`).toBe(depth > limit);
      }
    }
  }, 30_000);

  test("a string that never closes cannot nest anything", () => {
    expect(exceedsJsonDepth('["' + "[".repeat(1000), 10)).toBe(false);
  });

  test("stops at the first level past the limit", () => {
    expect(exceedsJsonDepth("[".repeat(1_000_000), 256)).toBe(true);
  });
});
