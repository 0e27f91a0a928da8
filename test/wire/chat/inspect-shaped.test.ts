import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inspectChatStream } from "../../../src/wire/chat/inspect-stream.ts";

/**
 * Runs chunk data through a Chat inspector as the pass-through pipe does, and says what it saw.
 * Pretty-printed data (`"content": "…"`) never fits a learned shape, so it is every chunk through
 * JSON.parse: the reference the shaped reading must match.
 */
function inspect(data: readonly string[]): unknown {
  const pieces: string[] = [];
  const inspector = inspectChatStream({ addText: (piece) => pieces.push(piece), failed: () => "failed", hideUsageChunk: true });
  const verdicts = data.map((d) => inspector.step(undefined, d));
  return { verdicts, pieces, usage: inspector.usage, between: inspector.between };
}

const pretty = (data: string): string => {
  try {
    return JSON.stringify(JSON.parse(data), null, 1);
  } catch {
    return data;
  }
};

const content = (literal: string): string =>
  `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${literal}},"finish_reason":null}],"obfuscation":"xyz"}`;

describe("Chat inspector: shaped chunks read as parsed ones", () => {
  const corpus = join(import.meta.dir, "..", "..", "fixtures", "providers", "openai-chat");
  for (const file of readdirSync(corpus).filter((name) => name.endsWith(".chunks.txt"))) {
    test(`recorded ${file}`, () => {
      const lines = readFileSync(join(corpus, file), "utf8").split("\n").filter((line) => line.trim() !== "");
      const data = [...lines, "[DONE]"];
      expect(inspect(data)).toEqual(inspect(data.map(pretty)));
    });
  }

  test("a chunk that only looks like the last ones is read as JSON.parse reads it", () => {
    const data = [
      ...Array.from({ length: 20 }, (_, i) => content(`"w${i} "`)),
      content('"two \\"quoted\\" \\u00e9 "'),
      content('"raw\u0001control"'),
      content('"unfinished'),
      `${content('"trailing"')} x`,
      content('"last"').replace('"finish_reason":null', '"finish_reason":"content_filter"'),
      content('"three"'),
      '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9}}',
      "[DONE]",
    ];
    const seen = inspect(data);
    expect(seen).toEqual(inspect(data.map(pretty)));
    expect(seen).toMatchObject({ verdicts: [...Array(21).fill("pass"), "malformed", "malformed", "malformed", "filtered", "pass", "hide", "stopped"] });
  });
});
