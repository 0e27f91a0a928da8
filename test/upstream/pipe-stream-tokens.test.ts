import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { STREAM_KEEP_LIMIT } from "../../src/cache/stream-keep-limit.ts";
import { type PipeEnd, pipeStream } from "../../src/upstream/passthrough/pipe-stream.ts";
import type { StreamTokens } from "../../src/canonical/stream-tokens.ts";
import type { WireApi } from "../../src/wire/wire-api.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";

/** A recording's data lines. */
const recording = (api: string, file: string): string[] =>
  readFileSync(join(import.meta.dir, "..", "fixtures", "providers", api, file), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");

/** The recorded events as the API sends them: Messages names each event, Chat does not. */
const asSse = (lines: readonly string[], named: boolean): string =>
  lines.map((line) => (named ? `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n` : `data: ${line}\n\n`)).join("");

interface Case {
  readonly api: WireApi;
  /** The stream up to its last text, so that it is cut there: no usage for the whole answer comes. */
  readonly opening: readonly string[];
  /** One text event, repeated as often as the answer needs. */
  readonly text: string;
  readonly named: boolean;
}

/** The longest of the lines: the text event with the most text, several tokens. */
const longest = (lines: readonly string[]): string => lines.reduce((a, b) => (b.length > a.length ? b : a));

const messagesLines = recording("anthropic", "anthropic-text.chunks.txt");
const chatLines = recording("openai-chat", "openai-text.chunks.txt");
const CASES: Record<string, Case> = {
  messages: {
    api: wireApi("messages"),
    opening: messagesLines.slice(0, messagesLines.findIndex((line) => line.includes('"content_block_delta"'))),
    text: longest(messagesLines.filter((line) => line.includes('"text_delta"'))),
    named: true,
  },
  chat: {
    api: wireApi("chat"),
    opening: chatLines.slice(0, 1),
    text: longest(chatLines.filter((line) => /"delta":\{"content":"[^"]/.test(line))),
    named: false,
  },
};

/** The Chat chunk that ends an answer, when no usage chunk follows. */
const FINISH_NO_USAGE = chatLines.find((line) => line.includes('"finish_reason":"stop"'))!;

const limits = { keepaliveMs: 60_000, idleMs: 300_000, maxEventBytes: 1024 * 1024 };
const client = new Request("http://gateway.test/");

/**
 * A stream of `texts` text events, then `closing` (none: the upstream cuts it after the last text),
 * piped in 16 KB reads and read to its end: how it ended, and the tokens `beforeLastBytes` was given.
 */
async function pipeCut(c: Case, texts: number, keepChunks: boolean, closing: readonly string[] = [], readBytes = 16 * 1024): Promise<PipeEnd & { readonly beforeLast?: number }> {
  const sse = Buffer.from(asSse([...c.opening, ...Array.from({ length: texts }, () => c.text), ...closing], c.named));
  const firstEnd = sse.indexOf("\n\n") + 2;
  const reads: Buffer[] = [];
  for (let at = firstEnd; at < sse.length; at += readBytes) reads.push(sse.subarray(at, Math.min(sse.length, at + readBytes)));
  const reader = { read: async () => (reads.length > 0 ? { done: false as const, value: reads.shift()! } : { done: true as const }), cancel: async () => {} };
  let ended!: (end: PipeEnd) => void;
  const end = new Promise<PipeEnd>((resolve) => (ended = resolve));
  let beforeLast: number | undefined;
  const beforeLastBytes = (tokens?: StreamTokens): void => {
    beforeLast = tokens?.sentTokens();
  };
  const body = pipeStream(reader, sse.subarray(0, firstEnd), { api: c.api, upstreamModelId: "m", tier: "fast", client, limits, keepChunks, onEnd: ended, beforeLastBytes });
  await new Response(body).arrayBuffer();
  return { ...(await end), beforeLast };
}

describe("a same-format stream whose upstream reports no usage counts the text it sent", () => {
  for (const [name, c] of Object.entries(CASES)) {
    test(`${name}: the same count whether its chunks are kept (read back from them) or not (counted as they pass)`, async () => {
      const kept = await pipeCut(c, 300, true);
      const passing = await pipeCut(c, 300, false);
      expect(kept.failure).toBeDefined();
      expect(kept.chunks).toBeUndefined();
      expect(passing.sentTokens()).toBeGreaterThan(300);
      expect(kept.sentTokens()).toBe(passing.sentTokens());
    });

    test(`${name}: a stream that ends without the usage is counted before its last bytes as well`, async () => {
      const closing = c.named ? messagesLines.slice(messagesLines.findIndex((line) => line.includes('"content_block_stop"'))).filter((line) => !line.includes('"message_delta"')) : [FINISH_NO_USAGE, "[DONE]"];
      const kept = await pipeCut(c, 300, true, closing);
      const passing = await pipeCut(c, 300, false, closing);
      expect(kept.failure).toBeUndefined();
      expect(passing.beforeLast).toBeGreaterThan(300);
      expect(kept.beforeLast).toBe(passing.beforeLast);
    });

    test(`${name}: past the size kept, what the chunks held is counted when they are let go, and the rest as it passes`, async () => {
      const texts = Math.ceil((STREAM_KEEP_LIMIT * 1.1) / (c.text.length + 20));
      const kept = await pipeCut(c, texts, true);
      const passing = await pipeCut(c, texts, false);
      expect(passing.sentTokens()).toBeGreaterThan(texts);
      expect(kept.sentTokens()).toBe(passing.sentTokens());
    });
  }

});
