import { expect, test } from "bun:test";
import { createTextTally } from "../../src/upstream/sse/create-text-tally.ts";

test("text waits uncounted only up to about a thousand characters: small pieces keep their events alive until counted", () => {
  let longest = 0;
  const tally = createTextTally((text) => {
    longest = Math.max(longest, text.length);
    return text;
  });
  for (let i = 0; i < 10_000; i++) tally.add(`w${i % 97} `);
  expect(tally.tokens()).toBeGreaterThan(0);
  expect(longest).toBeLessThanOrEqual(1_024 + 4);
});

test("the count is taken over the same windows of text, whatever the pieces: each closed once it holds 1,024 characters", () => {
  const pieces = Array.from({ length: 5_000 }, (_, i) => (i % 7 === 0 ? "a longer piece of text, é and 🙂 " : `w${i} `));
  const windows: string[] = [];
  const tally = createTextTally((text) => {
    windows.push(text);
    return text;
  });
  for (const piece of pieces) tally.add(piece);
  tally.tokens();
  // The windows, cut where the text waiting first reaches 1,024 characters; the rest is the last one.
  const expected: string[] = [];
  let waiting = "";
  for (const piece of pieces) {
    waiting += piece;
    if (waiting.length >= 1_024) {
      expected.push(waiting);
      waiting = "";
    }
  }
  expected.push(waiting);
  expect(windows).toEqual(expected);
});
