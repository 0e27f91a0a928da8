import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { type ChatDecodeState, chatStreamDecoder } from "../../../src/wire/chat/decode-stream.ts";
import { type JsonPath, type JsonShape, learnShape, newShapeMemory, readShaped } from "../../../src/wire/json-shape.ts";
import type { StreamDecoder } from "../../../src/wire/upstream-adapter.ts";
import { decodeSseText } from "./decode-sse-text.ts";

/** The decoder with shapes switched off: every chunk through JSON.parse, the reference. */
const parsingOnly: StreamDecoder<ChatDecodeState> = { ...chatStreamDecoder, initial: () => ({ ...chatStreamDecoder.initial(), shapes: newShapeMemory(0) }) };

/** The strings the decoder cuts out of a Chat chunk. */
const CHANGING: readonly JsonPath[] = [
  ["choices", 0, "delta", "content"],
  ["choices", 0, "delta", "reasoning_content"],
  ["choices", 0, "delta", "reasoning"],
  ["choices", 0, "delta", "tool_calls", 0, "function", "arguments"],
];
function learnChunkShape(data: string, chunk: Record<string, unknown>): JsonShape | undefined {
  const memory = { ...newShapeMemory(), wait: 0 };
  learnShape(memory, data, chunk, CHANGING, [["obfuscation"]]);
  return memory.shape ?? undefined;
}
const fillJsonShape = (shape: JsonShape, data: string) => readShaped({ shape, wait: 0, tries: 0, fills: 0, framed: null, name: undefined }, data);

const sse = (...payloads: string[]): string => payloads.map((p) => `data: ${p}\n\n`).join("");
const both = (text: string): [StreamEvent[], StreamEvent[]] => [decodeSseText(chatStreamDecoder, text), decodeSseText(parsingOnly, text)];

/** How many of the stream's chunks were read through a shape rather than parsed. */
function shapedChunks(text: string): number {
  let state = chatStreamDecoder.initial();
  let filled = 0;
  for (const block of text.split("\n\n").filter((b) => b.startsWith("data: {"))) {
    const data = block.slice(6);
    const shape = state.shapes.shape;
    if (shape !== null && fillJsonShape(shape, data) !== undefined) filled++;
    state = chatStreamDecoder.step(state, { event: undefined, data })[0];
  }
  return filled;
}

const head = '{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":';
const tail = ',"logprobs":null,"finish_reason":null}],"usage":null}';
const content = (literal: string): string => `${head}{"content":${literal}}${tail}`;
const opening = `${head}{"role":"assistant","content":""}${tail}`;
const finishing = `${head}{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`;
/** Enough text chunks for the decoder to have learned their shape by the end of them. */
const warm = Array.from({ length: 20 }, (_, i) => content(`"w${i} "`));

describe("chunk shapes: a stream reads the same with and without them", () => {
  const corpus = join(import.meta.dir, "..", "..", "fixtures", "providers", "openai-chat");
  for (const file of readdirSync(corpus).filter((name) => name.endsWith(".chunks.txt"))) {
    test(`recorded ${file}`, () => {
      const lines = readFileSync(join(corpus, file), "utf8").split("\n").filter((line) => line.trim() !== "");
      const [shaped, parsed] = both(sse(...lines, "[DONE]"));
      expect(shaped).toEqual(parsed);
      expect(shaped.length).toBeGreaterThan(3);
      // Most chunks of a recorded answer are text chunks of one shape: all but the first few (a
      // stream parses 16 before it learns), the first of each kind, the opening and closing
      // chunks, and one a second where xAI's `created` ticks.
      expect(shapedChunks(sse(...lines))).toBeGreaterThanOrEqual(Math.min(lines.length - 22, lines.length * 0.9 - 18));
    });
  }

  test("escapes, non-ASCII and empty text in the hole", () => {
    const [shaped, parsed] = both(sse(opening, ...warm, content('"a"'), content('"b \\"q\\" \\n \\u00e9"'), content('""'), content('"漢字 🙂"'), content('"\\ud83d\\ude42"'), finishing, "[DONE]"));
    expect(shaped).toEqual(parsed);
    expect(shaped.filter((e) => e.type === "text_delta").map((e) => (e.type === "text_delta" ? e.text : "")).slice(warm.length)).toEqual(["a", 'b "q" \n é', "漢字 🙂", "🙂"]);
  });

  test.each([
    ["a raw control character in the text", content('"bad\u0001"')],
    ["an unfinished literal", `${head}{"content":"open}${tail}`],
    ["a bad escape", content('"\\x41"')],
    ["something after the chunk", `${content('"x"')} {}`],
    ["a second key in the delta", `${head}{"content":"x","refusal":"no"}${tail}`],
    ["another finish", `${head}{"content":"x"},"logprobs":null,"finish_reason":"length"}],"usage":null}`],
  ])("a chunk that only looks like the shape is read as JSON.parse reads it: %s", (_name, odd) => {
    const [shaped, parsed] = both(sse(opening, ...warm, content('"a"'), content('"b"'), odd, content('"c"'), finishing, "[DONE]"));
    expect(shaped).toEqual(parsed);
  });

  test("tool-call argument fragments and OpenAI's obfuscation padding are holes", () => {
    const call = (args: string, pad: string): string =>
      `{"id":"c","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(args)}}}]},"finish_reason":null}],"obfuscation":${JSON.stringify(pad)}}`;
    const first = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}';
    const done = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}';
    const pieces = Array.from({ length: 20 }, (_, i) => call(`${i}`, "p".repeat(i)));
    const [shaped, parsed] = both(sse(first, ...pieces, call('{"a"', "xy"), call(":1", "pqrs"), call("}", ""), done, "[DONE]"));
    expect(shaped).toEqual(parsed);
    expect(shaped.filter((e) => e.type === "tool_args_delta").map((e) => (e.type === "tool_args_delta" ? e.fragment : "")).slice(pieces.length)).toEqual(['{"a"', ":1", "}"]);
  });
});

describe("learning the shape of Chat chunks", () => {
  test("holes only where the literal is certain; the rest of the text must repeat exactly", () => {
    const data = content('"hello"');
    const shape = learnChunkShape(data, JSON.parse(data));
    expect(shape?.pieces).toEqual([`${head}{"content":`, `}${tail}`]);
    expect(fillJsonShape(shape!, content('"bye"'))).toMatchObject({ choices: [{ delta: { content: "bye" } }] });
    expect(fillJsonShape(shape!, content('"bye"').replace('"created":1', '"created":2'))).toBeUndefined();
  });

  test.each([
    ["no text in the delta", finishing],
    ["the key written twice (the last one counts in a parse)", `${head}{"content":"a","content":"b"}${tail}`],
    ["the key spaced out", `${head}{"content": "a"}${tail}`],
    ["the text of the second choice in the first one's place", '{"id":"x","choices":[{"index":1,"delta":{"content" : "b"}},{"index":0,"delta":{"content":"a"}}]}'],
  ])("no shape: %s", (_name, data) => {
    expect(learnChunkShape(data, JSON.parse(data))).toBeUndefined();
  });

  test("a look-alike key elsewhere is not taken for the delta's text", () => {
    const data = '{"id":"x","meta":{"content":"a"},"choices":[{"index":0,"delta":{"content" :"a"}}]}';
    expect(learnChunkShape(data, JSON.parse(data))).toBeUndefined();
  });
});
