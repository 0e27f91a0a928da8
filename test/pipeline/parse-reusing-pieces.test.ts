import { describe, expect, test } from "bun:test";
import { isDeepStrictEqual } from "node:util";
import { createParseMemo, type ParseScope } from "../../src/pipeline/create-parse-memo.ts";
import { parseJsonBytes } from "../../src/pipeline/parse-json-bytes.ts";
import { parseReusingPieces } from "../../src/pipeline/parse-reusing-pieces.ts";
import { MAX_JSON_DEPTH } from "../../src/pipeline/exceeds-json-depth.ts";
import { scanJsonBytes } from "../../src/pipeline/scan-json-bytes.ts";
import { countSkips } from "../helpers/count-skips.ts";
import { seededRandom, type Json } from "../helpers/seeded-random.ts";

/** Strings full of what could fool a scanner: brackets, commas, colons, quotes, runs of backslashes. */
const TRICKY = ["[", "]", "{", "}", ",", ":", '"', "\\", '\\"', "\\\\", "0", " ", "é", "🚀", "\u0000", "x".repeat(300)];
const SPACES = ["", " ", "\n  ", "\t", "\r\n"];

/** What a parse of `text` gives: its value, or that it failed. */
function outcome(parse: () => unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parse() };
  } catch {
    return { ok: false };
  }
}

/** The same, without the characters outside ASCII. */
const ASCII_TRICKY = TRICKY.filter((token) => Buffer.byteLength(token) === token.length);

/** The UTF-8 of `text`, as a body comes. */
const utf8 = (text: string): Uint8Array => Buffer.from(text);
/** `text` as the gateway reads it: its UTF-8, decoded (a lone surrogate a mutation left is a U+FFFD). */
const asRead = (text: string): string => new TextDecoder().decode(utf8(text));

/** Parsed as the gateway parses a big body: in pieces, through one account's scope. */
const parsePieced = (text: string, scope: ParseScope) => parseJsonBytes(utf8(text), scope).value;
/** The pieces of `text` read through `scope`, undefined where the whole parse is left to do it. */
const readPieces = (text: string, scope: ParseScope) => {
  const bytes = utf8(text);
  return parseReusingPieces(bytes, scanJsonBytes(bytes, MAX_JSON_DEPTH, true), scope);
};

/** Elements the scans passed over as the account's last body had them (see ParseScope.skipper). */
let skips = 0;
const counted = (scope: ParseScope): ParseScope => countSkips(scope, () => skips++);

describe("a body parsed in pieces is the body JSON.parse makes", () => {
  const next = seededRandom(7);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  // Every other body is ASCII, as most are; the others hold characters of every width.
  let ascii = false;
  const string = () => Array.from({ length: int(5) }, () => pick(ascii ? ASCII_TRICKY : TRICKY)).join("");
  function value(depth: number): Json {
    const kind = depth > 4 ? int(4) : int(7);
    if (kind === 0) return null;
    if (kind === 1) return next() < 0.5;
    if (kind === 2) return pick([0, -1.5e-7, 12, 3.25, 1e21]);
    if (kind === 3) return string();
    if (kind === 4 || kind === 5) return Array.from({ length: int(6) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: int(4) }, () => [string(), value(depth + 1)]));
  }
  /** A body's text, written with random spacing around every token. */
  function write(json: Json): string {
    const s = () => pick(SPACES);
    if (Array.isArray(json)) return `[${s()}${json.map((item) => `${s()}${write(item)}${s()}`).join(",")}${s()}]`;
    if (json !== null && typeof json === "object") return `{${s()}${Object.entries(json).map(([k, v]) => `${s()}${JSON.stringify(k)}${s()}:${s()}${write(v)}${s()}`).join(",")}${s()}}`;
    return JSON.stringify(json);
  }
  function body(): Record<string, Json> {
    const messages = Array.from({ length: 1 + int(12) }, () => ({ role: pick(["user", "assistant"]), content: [{ type: "text", text: "y".repeat(int(200)) + string() }, value(2)] }));
    return { model: "normal", system: "s".repeat(int(1500)) + string(), messages, tools: Array.from({ length: int(4) }, () => ({ name: string(), input_schema: value(1) })), [string()]: value(1) };
  }

  test("2,000 generated bodies, each parsed three times (first sight, kept, reused) (fixed seed)", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    let pieced = 0;
    for (let i = 0; i < 2_000; i++) {
      ascii = i % 2 === 0;
      const text = write(body());
      const expected = JSON.parse(text);
      for (let round = 0; round < 3; round++) expect(isDeepStrictEqual(parsePieced(text, memo.scope("acct")), expected)).toBe(true);
      // Not by falling back to the whole parse: the pieces were read and put in place.
      const direct = readPieces(text, memo.scope("acct"));
      if (direct !== undefined) {
        pieced++;
        expect(isDeepStrictEqual(direct, expected)).toBe(true);
      }
    }
    // A body is parsed whole only when it has no big member, or repeats a key.
    expect(pieced).toBeGreaterThan(1_500);
  });

  test("2,000 bodies with one character changed, dropped or added parse, or fail, as JSON.parse does (fixed seed)", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const noise = [",", ":", "[", "]", "{", "}", '"', "\\", "0", " ", "x", "-", "e", "."];
    let failed = 0;
    for (let i = 0; i < 2_000; i++) {
      ascii = i % 2 === 0;
      const text = write(body());
      // The unchanged text first: the mutant's pieces are then read against what was kept.
      parsePieced(text, memo.scope("acct"));
      parsePieced(text, memo.scope("acct"));
      const at = int(text.length);
      const change = int(3);
      const mutant = change === 0 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + pick(noise) + text.slice(at + (change === 1 ? 1 : 0));
      const expected = outcome(() => JSON.parse(asRead(mutant)));
      const got = outcome(() => parsePieced(mutant, counted(memo.scope("acct"))));
      expect(got.ok).toBe(expected.ok);
      if (got.ok && expected.ok) expect(isDeepStrictEqual(got.value, expected.value)).toBe(true);
      if (!expected.ok) failed++;
    }
    // The mutations made both kinds of text.
    expect(failed).toBeGreaterThan(200);
    expect(failed).toBeLessThan(1_900);
    // The ASCII mutants' unchanged elements were passed over as the text before them had them.
    expect(skips).toBeGreaterThan(4_000);
  });

  test("300 conversations of 6 turns, each turn the last one edited as agents edit it, parse as JSON.parse does (fixed seed)", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const before = skips;
    const message = (): string => write({ role: pick(["user", "assistant"]), content: [{ type: "text", text: "n".repeat(int(300)) + string() }, value(2)] });
    for (let c = 0; c < 300; c++) {
      ascii = c % 4 !== 0;
      const { messages: _, ...rest } = body();
      // Each message written once, as a client keeps its conversation and sends it again.
      const messages = Array.from({ length: 1 + int(6) }, message);
      const account = memo.scope(`acct${c % 7}`);
      for (let turn = 0; turn < 6; turn++) {
        // A turn: new messages after the others; now and then one changed in place (a marker moved), one dropped, or the members in another order.
        messages.push(...Array.from({ length: 1 + int(3) }, message));
        const edit = int(5);
        if (edit === 0) messages[int(messages.length)] = message();
        if (edit === 1 && messages.length > 1) messages.splice(int(messages.length), 1);
        const others = Object.entries(rest).map(([k, v]) => `${JSON.stringify(k)}:${write(v)}`);
        const members = [`"messages":[${messages.join(",")}]`, ...others];
        const text = `{${(edit === 2 ? members.reverse() : members).join(",")}}`;
        const got = outcome(() => parsePieced(text, counted(account)));
        const expected = outcome(() => JSON.parse(text));
        expect(got.ok).toBe(expected.ok);
        if (got.ok && expected.ok) expect(isDeepStrictEqual(got.value, expected.value)).toBe(true);
      }
    }
    // Most messages of a turn are the last turn's, in place.
    expect(skips - before).toBeGreaterThan(4_000);
  });

  const big = (members: string) => `{"model":"normal",${members}}`;
  const longText = "z".repeat(2_000);
  const cases: readonly [string, string][] = [
    ["a repeated key (the last value counts)", big(`"messages":[{"a":"${longText}"}],"messages":[1]`)],
    ["a repeated key whose last value is the big one", big(`"messages":[1],"messages":[{"a":"${longText}"}]`)],
    ["a key written with escapes", big(`"m\\u0065ssages":[{"a":"${longText}"}]`)],
    ["__proto__ as a member", big(`"__proto__":{"polluted":"${longText}"}`)],
    ["__proto__ inside an element", big(`"messages":[{"__proto__":{"x":1},"a":"${longText}"}]`)],
    ["an empty element between commas", big(`"messages":[{"a":"${longText}"},,{"b":1}]`)],
    ["a trailing comma in the array", big(`"messages":[{"a":"${longText}"},]`)],
    ["a leading comma in the array", big(`"messages":[,{"a":"${longText}"}]`)],
    ["two elements without a comma", big(`"messages":[{"a":"${longText}"} {"b":1}]`)],
    ["a missing colon", big(`"system" "${longText}"`)],
    ["a member without a value", big(`"system":,"messages":["${longText}"]`)],
    ["text after the object", `${big(`"messages":["${longText}"]`)} x`],
    ["a second object after the first", `${big(`"messages":["${longText}"]`)}{}`],
    ["scalars and arrays as elements", big(`"messages":[1, "${longText}" , [2,[3]], null, true, {"k":[]}]`)],
    ["an empty array and an empty object", big(`"messages":[],"tools":{},"system":"${longText}"`)],
    ["a big number member", big(`"n":${"9".repeat(1_500)}`)],
    ["a top-level array", `[{"a":"${longText}"},{"b":2}]`],
    ["an element of zero", big(`"messages":[0,0,"${longText}"]`)],
    ["a member of zero beside a big one", big(`"x":0,"system":"${longText}"`)],
  ];
  for (const [name, text] of cases) {
    test(`${name}: the same outcome as JSON.parse`, () => {
      const memo = createParseMemo({ maxChars: 1 << 20 });
      const expected = outcome(() => JSON.parse(text));
      for (let round = 0; round < 3; round++) {
        const got = outcome(() => parsePieced(text, memo.scope("acct")));
        expect(got.ok).toBe(expected.ok);
        if (got.ok && expected.ok) {
          expect(isDeepStrictEqual(got.value, expected.value)).toBe(true);
          expect(Object.getPrototypeOf(got.value)).toBe(Object.getPrototypeOf(expected.value));
        }
      }
    });
  }

  test("a body of more pieces than a conversation has is parsed whole", () => {
    const many = `{"model":"normal","messages":[${Array.from({ length: 10_001 }, (_, i) => `"${i}"`).join(",")}]}`;
    const few = `{"model":"normal","messages":[${Array.from({ length: 10_000 }, (_, i) => `"${i}"`).join(",")}]}`;
    const scope = createParseMemo({ maxChars: 1 << 20 }).scope("acct");
    expect(readPieces(many, scope)).toBeUndefined();
    expect(readPieces(few, scope)).toEqual(JSON.parse(few));
    expect(parsePieced(many, scope)).toEqual(JSON.parse(many));
  });

  test("a big array is read element by element and a big value whole; small members are parsed with the rest", () => {
    const text = big(`"system":"${longText}","messages":[{"a":"${longText}"},{"b":"${longText}"},7],"max_tokens":5`);
    const read: string[] = [];
    const scope: ParseScope = {
      read(bytes, start, end) {
        const piece = new TextDecoder().decode(bytes.subarray(start, end));
        read.push(piece.slice(0, 8));
        return JSON.parse(piece);
      },
    };
    const value = readPieces(text, scope);
    expect(value).toEqual(JSON.parse(text));
    expect(read).toEqual([`"zzzzzzz`, `{"a":"zz`, `{"b":"zz`, "7"]);
  });
});
