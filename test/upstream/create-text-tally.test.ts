import { expect, test } from "bun:test";
import { estimateTextTokens } from "../../src/canonical/estimate-text-tokens.ts";
import { createTextTally } from "../../src/upstream/sse/create-text-tally.ts";

test("an answer's pieces are counted as one text when asked, not as they arrive", () => {
  let decoded = 0;
  const tally = createTextTally((text) => {
    decoded++;
    return text;
  });
  const pieces = Array.from({ length: 2_000 }, (_, i) => `word${i} and more, `);
  for (const piece of pieces) tally.add(piece);
  expect(decoded).toBe(0);
  expect(tally.tokens()).toBe(estimateTextTokens(pieces.join("")));
  expect(decoded).toBe(1);
});

test("a very long answer is counted as it goes, so the tally holds a bounded amount of it", () => {
  let decoded = 0;
  const tally = createTextTally((text) => {
    decoded++;
    return text;
  });
  const piece = "lorem ipsum dolor sit amet ".repeat(40);
  for (let i = 0; i < 1_000; i++) tally.add(piece);
  expect(decoded).toBeGreaterThan(10);
  expect(tally.tokens()).toBeGreaterThan(0);
});
