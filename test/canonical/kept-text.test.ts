import { expect, test } from "bun:test";
import { keepText, newKeptText, readKeptText } from "../../src/canonical/kept-text.ts";

test.each([
  ["no piece", []],
  ["one piece", ["only"]],
  ["many short pieces, copied every few dozen", Array.from({ length: 1_000 }, (_, i) => `w${i} `)],
  ["pieces longer than a copy", Array.from({ length: 5 }, (_, i) => String(i).repeat(3_000))],
  ["non-Latin-1 text, a surrogate pair cut between two pieces", ["漢字 ", "\ud83d", "\ude42", ...Array.from({ length: 100 }, () => "é🙂 ")]],
])("what is kept reads back as the pieces joined: %s", (_name, pieces) => {
  const kept = newKeptText();
  for (const piece of pieces) keepText(kept, piece);
  expect(readKeptText(kept)).toBe(pieces.join(""));
});

test("the pieces are copied out every 32 of them, or every 1,024 characters, whichever comes first", () => {
  const short = newKeptText();
  for (let i = 0; i < 100; i++) keepText(short, "ab");
  expect([short.parts.length, short.pending.length, short.chars]).toEqual([3, 4, 8]);
  const long = newKeptText();
  keepText(long, "x".repeat(600));
  keepText(long, "y".repeat(600));
  expect([long.parts.length, long.pending.length, long.chars]).toEqual([1, 0, 0]);
});
