import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { STREAM_KEEP_LIMIT } from "../../src/cache/stream-keep-limit.ts";
import { forwardTranslated } from "../../src/upstream/translated/forward-translated.ts";
import type { StreamOutcome } from "../../src/upstream/translated/stream-outcome.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";

/** The recorded Chat stream's lines: its opening chunk, and a text chunk to write other text into. */
const lines = readFileSync(join(import.meta.dir, "..", "fixtures", "providers", "openai-chat", "openai-text.chunks.txt"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "");
const OPENING = lines[0]!;
const TEXT_CHUNK = JSON.parse(lines.find((line) => /"delta":\{"content":"[^"]/.test(line))!) as { choices: [{ delta: { content: string } }] };

/** A piece of text of 1,000 one-token words. */
const PIECE = "alpha ".repeat(1_000);

/** An answer past what the collector keeps, cut by the upstream after its last text chunk: no finish, no usage. */
const PIECES = Math.ceil(STREAM_KEEP_LIMIT / PIECE.length) + 5;
const chunk = (content: string): string => `data: ${JSON.stringify({ ...TEXT_CHUNK, choices: [{ ...TEXT_CHUNK.choices[0], delta: { content } }] })}\n\n`;
const CUT_ANSWER = `data: ${OPENING}\n\n${Array.from({ length: PIECES }, () => chunk(PIECE)).join("")}`;

let upstream: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  upstream = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(CUT_ANSWER, { headers: { "content-type": "text/event-stream" } }) });
});
afterAll(() => upstream.stop(true));

/** The translated stream read to its end by a Messages client, the answer collected for the cache or not: how it ended. */
async function translate(collect: boolean): Promise<StreamOutcome> {
  let ended!: (outcome: StreamOutcome) => void;
  const outcome = new Promise<StreamOutcome>((resolve) => (ended = resolve));
  const translated = await forwardTranslated({
    url: `http://127.0.0.1:${upstream.port}/v1/chat/completions`,
    headers: { "content-type": "application/json" },
    body: "{}",
    stream: true,
    client: new Request("http://gateway.test/"),
    timeoutMs: 30_000,
    adapter: wireApi("chat").upstream,
    clientApi: wireApi("messages"),
    encode: { model: "fast", created: 1_700_000_000, includeUsage: false },
    limits: { keepaliveMs: 60_000, idleMs: 300_000, maxEventBytes: 1024 * 1024, maxBodyBytes: 64 * 1024 * 1024 },
    collect,
    onStreamEnd: ended,
  });
  await new Response(translated.body).arrayBuffer();
  return outcome;
}

describe("forwardTranslated: the text of a cut answer past what the collector keeps", () => {
  test("is counted the same collected or not: what the collector held when it let go, the piece that outgrew it, and the rest", async () => {
    const collected = await translate(true);
    const counted = await translate(false);
    expect(collected.error).toBeDefined();
    expect(collected.response).toBeUndefined();
    expect(counted.sentTokens()).toBe(PIECES * 1_000);
    expect(collected.sentTokens()).toBe(counted.sentTokens());
  });
});
