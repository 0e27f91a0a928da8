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
