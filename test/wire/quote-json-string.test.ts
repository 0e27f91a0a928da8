import { expect, test } from "bun:test";
import { quoteJsonString } from "../../src/wire/quote-json-string.ts";

test("quoteJsonString writes what JSON.stringify writes", () => {
  const alphabet = ['"', "\\", "a", " ", "\n", "\t", "\u0000", "\u001f", "\u007f", "é", "漢", "\ud83d", "\ude42", "\u2028", "/", "<"];
  let seed = 11;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  for (let i = 0; i < 20_000; i++) {
    let text = "";
    const length = next() % 8;
    for (let j = 0; j < length; j++) text += alphabet[next() % alphabet.length];
    expect(quoteJsonString(text)).toBe(JSON.stringify(text));
  }
});
