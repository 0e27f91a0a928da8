import { describe, expect, test } from "bun:test";
import { learnShape, newShapeMemory, type ShapeMemory } from "../../src/wire/json-shape.ts";
import { readShapedEvent } from "../../src/wire/read-shaped-event.ts";

const HOLES = [["choices", 0, "delta", "content"]] as const;
const data = (content: string, id = "c-1"): string => JSON.stringify({ id, choices: [{ index: 0, delta: { content } }] });
const event = (content: string, id?: string): Uint8Array => new TextEncoder().encode(`data: ${data(content, id)}\n\n`);

function learned(): ShapeMemory {
  const memory = { ...newShapeMemory(), wait: 0 };
  const text = data("first words");
  learnShape(memory, text, JSON.parse(text) as Record<string, unknown>, HOLES);
  expect(memory.shape).not.toBeNull();
  return memory;
}

/** The content the shape's chunk holds after a read. */
const content = (memory: ShapeMemory): unknown => ((memory.shape!.chunk.choices as { delta: { content: unknown } }[])[0]!).delta.content;

describe("readShapedEvent", () => {
  test("reads an event that fits the shape: its end, and its string in the shape's chunk", () => {
    const memory = learned();
    const bytes = event("next words");
    expect(readShapedEvent(memory, bytes, 0, 1 << 20)).toBe(bytes.length);
    expect(content(memory)).toBe("next words");
  });

  test.each([
    ["text past ASCII", "é — 漢字 🙂"],
    ["escapes", 'a "quote", a \\ and\na line'],
    ["a \\u escape of a pair", "\ud83d\ude00"],
  ])("decodes %s as JSON.parse does", (_what, text) => {
    const memory = learned();
    const bytes = event(text);
    expect(readShapedEvent(memory, bytes, 0, 1 << 20)).toBe(bytes.length);
    expect(content(memory)).toBe(text);
  });

  test("reads where it is told, in a read of several events", () => {
    const memory = learned();
    const first = event("one");
    const both = new Uint8Array([...first, ...event("two")]);
    expect(readShapedEvent(memory, both, first.length, 1 << 20)).toBe(both.length);
    expect(content(memory)).toBe("two");
  });

  test.each([
    ["other bytes around the hole", event("words", "c-2")],
    ["an event the read cuts short", event("words").subarray(0, 40)],
    ["an event without its blank line", event("words").subarray(0, event("words").length - 1)],
    ["a literal with a raw control character", new TextEncoder().encode(`data: ${data("a\u0001b").replace("\\u0001", "\u0001")}\n\n`)],
    ["a literal with a bad escape", new TextEncoder().encode(`data: ${data("a").replace('"a"', '"\\x"')}\n\n`)],
  ])("leaves %s to the splitter", (_what, bytes) => {
    expect(readShapedEvent(learned(), bytes, 0, 1 << 20)).toBe(-1);
  });

  test("leaves an event longer than the limit to the splitter, and reads it within the limit", () => {
    const bytes = event("x".repeat(100));
    const length = bytes.length - 2;
    expect(readShapedEvent(learned(), bytes, 0, length - 1)).toBe(-1);
    expect(readShapedEvent(learned(), bytes, 0, length)).toBe(bytes.length);
  });

  test("reads nothing before a shape is learned", () => {
    expect(readShapedEvent(newShapeMemory(), event("words"), 0, 1 << 20)).toBe(-1);
  });

  test("counts each event read, as readShaped does, and frames the shape anew when another is learned", () => {
    const memory = learned();
    for (let i = 0; i < 5; i++) readShapedEvent(memory, event(`w${i}`), 0, 1 << 20);
    expect(memory.fills).toBe(5);
    const framed = memory.framed;
    const text = data("other", "c-2");
    learnShape(memory, text, JSON.parse(text) as Record<string, unknown>, HOLES);
    expect(memory.framed).toBeNull();
    expect(readShapedEvent(memory, event("again", "c-2"), 0, 1 << 20)).toBeGreaterThan(0);
    expect(memory.framed).not.toBe(framed);
  });

  test("reads a count's digits into its hole, and frames the event with the name it was learned under", () => {
    const delta = (sequence: number | string, text: string): string => `{"type":"response.output_text.delta","sequence_number":${sequence},"item_id":"msg_1","delta":${JSON.stringify(text)}}`;
    const memory = { ...newShapeMemory(), wait: 0 };
    learnShape(memory, delta(7, "first"), JSON.parse(delta(7, "first")) as Record<string, unknown>, [["delta"]], [], [["sequence_number"]], "response.output_text.delta");
    const named = (data: string): Uint8Array => new TextEncoder().encode(`event: response.output_text.delta\ndata: ${data}\n\n`);
    const bytes = named(delta(1234, "next"));
    expect(readShapedEvent(memory, bytes, 0, 1 << 20)).toBe(bytes.length);
    expect(memory.shape!.chunk).toEqual(JSON.parse(delta(1234, "next")));
    expect(readShapedEvent(memory, new TextEncoder().encode(`data: ${delta(8, "unnamed")}\n\n`), 0, 1 << 20)).toBe(-1);
    expect(readShapedEvent(memory, named(delta("08", "leading zero")), 0, 1 << 20)).toBe(-1);
    expect(readShapedEvent(memory, named(delta("8.5", "a fraction")), 0, 1 << 20)).toBe(-1);
  });

  describe("a burst of events whose end and next start are compared at once (a start long enough to be compared natively)", () => {
    const LONG = `c-${"x".repeat(160)}`;
    const long = (): ShapeMemory => {
      const memory = { ...newShapeMemory(), wait: 0 };
      const text = data("first words", LONG);
      learnShape(memory, text, JSON.parse(text) as Record<string, unknown>, HOLES);
      return memory;
    };
    const burst = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(parts.flatMap((part) => [...part]));

    test("reads each event of the burst, and the last one, whose next start is not there", () => {
      const memory = long();
      const texts = ["one", "two", "three", "four"];
      const bytes = burst(...texts.map((text) => event(text, LONG)));
      let at = 0;
      for (const text of texts) {
        at = readShapedEvent(memory, bytes, at, 1 << 20);
        expect(content(memory)).toBe(text);
      }
      expect(at).toBe(bytes.length);
    });

    test("an event that follows one of another shape is read through the last piece alone", () => {
      const memory = long();
      const first = event("one", LONG);
      const bytes = burst(first, event("other", "c-2"));
      expect(readShapedEvent(memory, bytes, 0, 1 << 20)).toBe(first.length);
      expect(readShapedEvent(memory, bytes, first.length, 1 << 20)).toBe(-1);
    });

    test("a start matched ahead counts only where it was matched: elsewhere, and in other bytes, it is compared anew", () => {
      const memory = long();
      const first = event("one", LONG);
      const bytes = burst(first, event("two", LONG));
      expect(readShapedEvent(memory, bytes, 0, 1 << 20)).toBe(first.length);
      // The same place in other bytes, whose event there has another id of the same length.
      const other = burst(first, event("two", `c-${"y".repeat(160)}`));
      expect(readShapedEvent(memory, other, first.length, 1 << 20)).toBe(-1);
      expect(readShapedEvent(memory, bytes, 0, 1 << 20)).toBe(first.length);
      expect(readShapedEvent(memory, bytes, first.length + 1, 1 << 20)).toBe(-1);
      expect(readShapedEvent(memory, bytes, first.length, 1 << 20)).toBe(bytes.length);
      expect(content(memory)).toBe("two");
    });

    test("nor at another place in the same bytes, where an event of another id would otherwise fit", () => {
      const memory = long();
      const stranger = event("one", `c-${"y".repeat(160)}`);
      const bytes = burst(stranger, event("one", LONG), event("two", LONG));
      expect(readShapedEvent(memory, bytes, stranger.length, 1 << 20)).toBe(2 * stranger.length);
      expect(readShapedEvent(memory, bytes, 0, 1 << 20)).toBe(-1);
    });

    test("nor once another shape is learned", () => {
      const memory = long();
      const first = event("one", LONG);
      const bytes = burst(first, event("two", LONG));
      expect(readShapedEvent(memory, bytes, 0, 1 << 20)).toBe(first.length);
      const text = data("words", `c-${"y".repeat(160)}`);
      learnShape(memory, text, JSON.parse(text) as Record<string, unknown>, HOLES);
      expect(readShapedEvent(memory, bytes, first.length, 1 << 20)).toBe(-1);
    });
  });
});
