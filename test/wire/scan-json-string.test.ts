import { describe, expect, test } from "bun:test";
import { readJsonString, readJsonStringAt, scanJsonString, scanPlainJsonString } from "../../src/wire/scan-json-string.ts";

/** What JSON.parse makes of `literal` followed by `,1]` inside an array: the reference for the scanner. */
function parsedByJson(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(`[${literal},1]`);
    return Array.isArray(value) && typeof value[0] === "string" ? value[0] : undefined;
  } catch {
    return undefined;
  }
}

describe("scanJsonString", () => {
  test.each([
    ['"plain"', 7],
    ['""', 2],
    ['"a\\"b"', 6],
    ['"a\\\\"', 5],
    ['"\\u00e9\\n\\/"', 12],
    ['"é 漢字 🙂"', 9],
    ['"open', -1],
    ['"raw\nline"', -1],
    ['"bad \\x escape"', -1],
    ['"short \\u12"', -1],
    ["plain", -1],
  ])("scanJsonString(%j)", (text, end) => {
    expect(scanJsonString(text, 0)).toBe(end);
  });

  test("accepts exactly the literals JSON.parse accepts, and reads the same value", () => {
    const alphabet = ['"', "\\", "a", "u", "0", "f", "n", "/", "\t", "\n", " ", "é", "\u0001", "\ud83d", "\ude42", "x", "F"];
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      let body = "";
      const length = next() % 9;
      for (let j = 0; j < length; j++) body += alphabet[next() % alphabet.length];
      const literal = `"${body}"`;
      const expected = parsedByJson(literal);
      const end = scanJsonString(`${literal},1]`, 0);
      const plain = scanPlainJsonString(`${literal},1]`, 0);
      // The plain scan ends where the full one does when there is no escape, and gives up otherwise.
      expect(plain).toBe(end < 0 || literal.slice(0, end).includes("\\") ? -1 : end);
      if (expected === undefined) {
        // Either no literal at all, or a shorter one ends earlier (then what follows is not `,1]`).
        expect(end === -1 || end < literal.length).toBe(true);
      } else {
        expect(end).toBe(literal.length);
        expect(readJsonString(literal, 0, end)).toBe(expected);
      }
    }
  });
});

describe("readJsonStringAt", () => {
  test("the value when the range is exactly one literal, escapes read; otherwise undefined", () => {
    const text = `{"model":1,"a\\"b":2,"m\\u0065":3,"bad\\x":4}`;
    const at = (key: string) => text.indexOf(key);
    expect(readJsonStringAt(text, at(`"model"`), at(`"model"`) + 7)).toBe("model");
    expect(readJsonStringAt(text, at(`"a\\"b"`), at(`"a\\"b"`) + 6)).toBe('a"b');
    expect(readJsonStringAt(text, at(`"m\\u0065"`), at(`"m\\u0065"`) + 9)).toBe("me");
    // A bad escape, a range cut short, and a range past the literal's end.
    expect(readJsonStringAt(text, at(`"bad\\x"`), at(`"bad\\x"`) + 7)).toBeUndefined();
    expect(readJsonStringAt(text, at(`"model"`), at(`"model"`) + 6)).toBeUndefined();
    expect(readJsonStringAt(text, at(`"model"`), at(`"model"`) + 8)).toBeUndefined();
  });
});
