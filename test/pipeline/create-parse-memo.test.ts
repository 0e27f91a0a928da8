import { describe, expect, test } from "bun:test";
import { createParseMemo, type ParseScope } from "../../src/pipeline/create-parse-memo.ts";
import { parseJsonBytes } from "../../src/pipeline/parse-json-bytes.ts";
import { countSkips } from "../helpers/count-skips.ts";

/** A message of about `chars` characters, told apart by `n`. */
const message = (n: number, chars = 200): string => JSON.stringify({ role: "user", content: [{ type: "text", text: `${n} `.padEnd(chars, "w") }] });
/** The UTF-8 of `text`, as a body comes. */
const utf8 = (text: string): Uint8Array => Buffer.from(text);
const readAll = (scope: ParseScope, text: string): unknown => {
  const bytes = utf8(text);
  return scope.read(bytes, 0, bytes.length);
};

describe("createParseMemo", () => {
  test("a piece is parsed anew when first seen, kept at its second sighting and the kept value reused after", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const text = message(1);
    const first = readAll(memo.scope("a"), text);
    const second = readAll(memo.scope("a"), text);
    const third = readAll(memo.scope("a"), text);
    expect(second).not.toBe(first);
    expect(third).toBe(second);
    expect(third).toEqual(JSON.parse(text));
    // Found by its text inside a larger one too.
    expect(memo.scope("a").read(utf8(`[${text},1]`), 1, text.length + 1)).toBe(second);
  });

  test("a kept piece is found again inside another body's bytes, and only its own bytes count against the budget", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const text = `[${message(6)},1]`;
    const end = text.length - 3;
    memo.scope("a").read(utf8(text), 1, end);
    const kept = memo.scope("a").read(utf8(text), 1, end);
    // Found again in another body's bytes, byte for byte.
    expect(memo.scope("a").read(utf8(` ${text}`), 2, end + 1)).toBe(kept);
    // Only the piece's bytes count against the budget, not the body's.
    expect(memo.chars).toBe(end - 1);
  });

  test("a kept value is frozen down to its blocks, so no request can change it for the next", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const text = message(2);
    readAll(memo.scope("a"), text);
    const kept = readAll(memo.scope("a"), text) as { content: { text: string }[] };
    expect(Object.isFrozen(kept)).toBe(true);
    expect(Object.isFrozen(kept.content)).toBe(true);
    expect(Object.isFrozen(kept.content[0])).toBe(true);
    // Modules are strict: a write to a frozen object throws.
    expect(() => {
      kept.content[0]!.text = "changed";
    }).toThrow(TypeError);
  });

  test("accounts never share a value, and another text of the same length is not taken for a kept one", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const text = message(3);
    for (const account of ["a", "a", "b", "b"]) readAll(memo.scope(account), text);
    expect(readAll(memo.scope("a"), text)).not.toBe(readAll(memo.scope("b"), text));
    const other = message(4);
    expect(other.length).toBe(text.length);
    readAll(memo.scope("a"), other);
    expect(readAll(memo.scope("a"), other)).toEqual(JSON.parse(other));
  });

  test("a small piece is parsed each time and never kept", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const text = '{"a":[1,2]}';
    const values = [1, 2, 3].map(() => readAll(memo.scope("a"), text));
    expect(values[1]).not.toBe(values[2]);
    expect(memo.chars).toBe(0);
  });

  test("the budget holds, the account used longest ago loses its pieces first, and a piece read again outlives one that was not", () => {
    // Each message is about 1,050 characters: three fit, the fourth does not.
    const memo = createParseMemo({ maxChars: 4_000 });
    const keep = (account: string, n: number) => {
      const text = message(n, 1_000);
      readAll(memo.scope(account), text);
      return readAll(memo.scope(account), text);
    };
    const old = keep("old", 1);
    const hot = keep("recent", 2);
    const cold = keep("recent", 3);
    // Read again: it gets one more round when the eviction passes it.
    expect(readAll(memo.scope("recent"), message(2, 1_000))).toBe(hot);
    keep("newest", 10);
    keep("newest", 11);
    expect(memo.chars).toBeLessThanOrEqual(4_000);
    expect(readAll(memo.scope("recent"), message(2, 1_000))).toBe(hot);
    expect(readAll(memo.scope("recent"), message(3, 1_000))).not.toBe(cold);
    expect(readAll(memo.scope("old"), message(1, 1_000))).not.toBe(old);
  });

  test("a piece holding bytes that are not UTF-8 reads as the decoder reads them, first seen or kept", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const bytes = Buffer.concat([Buffer.from(`{"text":"${"a".repeat(100)}`), Buffer.from([0xff, 0xc3]), Buffer.from('"}')]);
    const values = [1, 2, 3].map(() => memo.scope("a").read(bytes, 0, bytes.length));
    for (const value of values) expect(value).toEqual({ text: `${"a".repeat(100)}\ufffd\ufffd` });
    expect(values[2]).toBe(values[1]);
  });

  test("a pass over the budget frees an eighth of it, so passes stay rare however small the pieces", () => {
    const memo = createParseMemo({ maxChars: 8_000 });
    let max = 0;
    let fell = false;
    for (let n = 0; n < 400; n++) {
      const before = memo.chars;
      readAll(memo.scope("a"), message(n, 100));
      // A pass ran: it left no more than seven eighths of the budget.
      if (memo.chars < before) {
        fell = true;
        expect(memo.chars).toBeLessThanOrEqual(7_000);
      }
      max = Math.max(max, memo.chars);
    }
    expect(fell).toBe(true);
    expect(max).toBeLessThanOrEqual(8_000);
  });

  test("a scope taken before its account's pieces were all evicted keeps what it reads where eviction finds it", () => {
    // Each message is about 1,050 characters: three fit.
    const memo = createParseMemo({ maxChars: 4_000 });
    const keep = (scope: () => ParseScope, n: number) => {
      readAll(scope(), message(n, 1_000));
      return readAll(scope(), message(n, 1_000));
    };
    keep(() => memo.scope("a"), 1);
    // A request of account a takes its scope, then waits for its body while b's requests evict all of a's pieces.
    const waiting = memo.scope("a");
    for (let n = 10; n < 14; n++) keep(() => memo.scope("b"), n);
    // a's body arrives: what it keeps is counted where eviction finds it.
    keep(() => waiting, 2);
    const kept = new Map<number, unknown>();
    for (let n = 20; n < 30; n++) kept.set(n, keep(() => memo.scope("b"), n));
    expect(memo.chars).toBeLessThanOrEqual(4_000);
    // a's piece was evictable like any other: b's last three all fit beside nothing of a's.
    for (const n of [29, 28, 27]) expect(readAll(memo.scope("b"), message(n, 1_000))).toBe(kept.get(n));
  });

  test("a piece that is not JSON throws as JSON.parse does, first seen or seen again", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const text = `${message(5).slice(0, -1)},}`;
    for (let i = 0; i < 3; i++) expect(() => readAll(memo.scope("a"), text)).toThrow(SyntaxError);
  });
});

describe("createParseMemo: an account's next body, its pieces in place", () => {
  /** A body of these messages (500 characters each: a member of them is read in pieces), as an agent sends its conversation. */
  const conversation = (ns: readonly number[]): string => `{"model":"normal","messages":[${ns.map((n) => message(n, 500)).join(",")}]}`;
  /** Reads `text` as the gateway reads a big body through the account's scope; counts the elements its scan passed over. */
  function readBody(memo: ReturnType<typeof createParseMemo>, text: string): { value: unknown; skipped: number } {
    let skipped = 0;
    const counting = countSkips(memo.scope("a"), () => skipped++);
    return { value: parseJsonBytes(utf8(text), counting).value, skipped };
  }

  test("a conversation in other scripts is passed over in place too, characters of any width", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const wide = (ns: readonly number[]) => conversation(ns).replaceAll("wwww", "né日\u{1F600}");
    readBody(memo, wide([1, 2]));
    readBody(memo, wide([1, 2]));
    const next = readBody(memo, wide([1, 2, 3]));
    expect(next.skipped).toBe(2);
    expect(next.value).toEqual(JSON.parse(wide([1, 2, 3])));
  });

  test("the scan passes over the elements the last body had in the same places, and their kept values come back", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const first = conversation([1, 2, 3]);
    expect(readBody(memo, first).skipped).toBe(0);
    // Seen twice: kept, and in place for the next body.
    const kept = readBody(memo, first);
    expect(kept.skipped).toBe(0);
    // The next turn: the same three, a new one after them.
    const next = readBody(memo, conversation([1, 2, 3, 4]));
    expect(next.skipped).toBe(3);
    expect(next.value).toEqual(JSON.parse(conversation([1, 2, 3, 4])));
    const messages = (next.value as { messages: unknown[] }).messages;
    expect(messages.slice(0, 3)).toEqual((kept.value as { messages: unknown[] }).messages);
    expect(messages[0]).toBe((kept.value as { messages: unknown[] }).messages[0]);
  });

  test("an element changed, moved or dropped is read again, and the body is the one JSON.parse makes", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    readBody(memo, conversation([1, 2, 3, 4]));
    readBody(memo, conversation([1, 2, 3, 4]));
    // The second message changed, the fourth gone, one added in front: only what is still in place is passed over.
    for (const ns of [[1, 9, 3, 4], [0, 1, 2, 3], [1, 2, 3], [4, 3, 2, 1]]) {
      const text = conversation(ns);
      const read = readBody(memo, text);
      expect(read.value).toEqual(JSON.parse(text));
    }
    readBody(memo, conversation([1, 2, 3, 4]));
    readBody(memo, conversation([1, 2, 3, 4]));
    expect(readBody(memo, conversation([1, 9, 3, 4])).skipped).toBe(3);
    expect(readBody(memo, conversation([0, 1, 2, 3])).skipped).toBe(0);
  });

  test("a piece in place of another of the same length, and a body cut inside a piece, are not taken for it", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    readBody(memo, conversation([1, 2]));
    readBody(memo, conversation([1, 2]));
    const other = conversation([1, 7]);
    expect(other.length).toBe(conversation([1, 2]).length);
    expect(readBody(memo, other)).toEqual({ value: JSON.parse(other), skipped: 1 });
    readBody(memo, conversation([1, 2]));
    const cut = conversation([1, 2]).slice(0, -40);
    expect(() => readBody(memo, cut)).toThrow();
  });

  test("an evicted piece is never passed over, and an account's order goes with its pieces", () => {
    // Each message is about 1,050 characters: three fit.
    const memo = createParseMemo({ maxChars: 4_000 });
    const body = `{"model":"normal","messages":[${message(1, 1_000)},${message(2, 1_000)}]}`;
    readBody(memo, body);
    readBody(memo, body);
    expect(readBody(memo, body).skipped).toBe(2);
    // Another account's pieces take the whole budget.
    for (const n of [10, 11, 12, 13]) {
      const text = message(n, 1_000);
      memo.scope("b").read(utf8(text), 0, text.length, { member: '"messages"', index: n });
      memo.scope("b").read(utf8(text), 0, text.length, { member: '"messages"', index: n });
    }
    const again = readBody(memo, body);
    expect(again.skipped).toBe(0);
    expect(again.value).toEqual(JSON.parse(body));
    expect(memo.chars).toBeLessThanOrEqual(4_000);
  });
});

describe("createParseMemo: a body nothing of which is kept in place is parsed whole", () => {
  const conversation = (ns: readonly number[]): string => `{"model":"normal","messages":[${ns.map((n) => message(n, 500)).join(",")}]}`;
  const parse = (memo: ReturnType<typeof createParseMemo>, text: string, account = "a") => parseJsonBytes(utf8(text), memo.scope(account)).value as { messages: unknown[] };

  test("the first and second sight take their pieces from one parse of the whole; the second keeps them, and the third reuses those very values", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const text = conversation([1, 2, 3]);
    const reads: number[] = [];
    const scope = memo.scope("a");
    const watched: ParseScope = {
      ...scope,
      read(t, start, ...rest) {
        reads.push(start);
        return scope.read(t, start, ...rest);
      },
    };
    expect(parseJsonBytes(utf8(text), watched).value).toEqual(JSON.parse(text));
    // No piece was parsed on its own: the whole parse gave them all, and each was noted.
    expect(reads).toEqual([]);
    expect(memo.chars).toBeGreaterThan(0);
    const second = parse(memo, text);
    expect(Object.isFrozen(second.messages[0])).toBe(true);
    const third = parse(memo, conversation([1, 2, 3, 4]));
    expect(third.messages[0]).toBe(second.messages[0]);
    expect(third.messages[2]).toBe(second.messages[2]);
    expect(third).toEqual(JSON.parse(conversation([1, 2, 3, 4])));
    // Another account has nothing of it.
    expect(parse(memo, text, "b").messages[0]).not.toBe(second.messages[0]);
  });

  test("a conversation kept stays reused while another, new one of the same account is parsed whole", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const a = conversation([1, 2, 3]);
    parse(memo, a);
    const kept = parse(memo, a);
    // A second conversation of the account, seen once: its order is now the account's last.
    parse(memo, conversation([7, 8, 9]));
    // The first one's next turn: not in place of the last body's pieces, but kept: read by its pieces, reused.
    const next = parse(memo, conversation([1, 2, 3, 4]));
    expect(next.messages[1]).toBe(kept.messages[1]);
    expect(next).toEqual(JSON.parse(conversation([1, 2, 3, 4])));
  });

  test("a body whose pieces cannot be matched with its parse (a repeated key) is parsed whole and nothing is noted", () => {
    const memo = createParseMemo({ maxChars: 1 << 20 });
    const text = `{"model":"normal","messages":[${message(1, 500)},${message(2, 500)}],"messages":[${message(3, 500)},${message(4, 500)}]}`;
    for (let i = 0; i < 3; i++) expect(parse(memo, text)).toEqual(JSON.parse(text));
    expect(memo.chars).toBe(0);
  });
});
