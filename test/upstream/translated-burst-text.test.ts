import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { replayConfig } from "../replay/replay-config.ts";

/**
 * A Chat upstream that sends its whole answer at once (as a fast model's burst comes), translated
 * for a Messages and a Responses client: the reads the gateway splits hold many events, some with
 * text past ASCII (decoded each on its own, or the whole stream read by read once it is dense with
 * it), and every character reaches the client as the upstream wrote it.
 */
const SPARSE = Array.from({ length: 600 }, (_, i) => (i % 150 === 70 ? ` a dash — a quote ’ 漢字 and 🙂 (${i})` : ` word ${i}`));
const DENSE = Array.from({ length: 600 }, (_, i) => (i < 100 ? ` word ${i}` : ` 漢字の文と🙂${i}`));
const PIECES: Readonly<Record<string, readonly string[]>> = { sparse: SPARSE, dense: DENSE };
/** An answer of its own for each of many streams at once: every piece says whose it is. */
const ownPieces = (n: number): string[] => Array.from({ length: 3000 }, (_, i) => (n % 2 === 0 ? ` ${n}:${i}` : ` ${n}→${i}`));

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "chatcmpl-burst", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;

function burst(pieces: readonly string[]): string {
  const usage = { id: "chatcmpl-burst", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 5, completion_tokens: pieces.length, total_tokens: 5 + pieces.length } };
  return [chunk({ role: "assistant", content: "" }), ...pieces.map((text) => chunk({ content: text })), chunk({}, "stop"), `data: ${JSON.stringify(usage)}\n\n`, "data: [DONE]\n\n"].join("");
}

let upstream: ReturnType<typeof Bun.serve>;
let gw: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as { messages: { content: unknown }[] };
      const asked = JSON.stringify(body.messages);
      const own = /answer (\d+)/.exec(asked);
      const pieces = own ? ownPieces(Number(own[1])) : PIECES[asked.includes("dense") ? "dense" : "sparse"]!;
      // One write: the gateway reads it in as few reads as the socket gives.
      return new Response(Buffer.from(burst(pieces)), { headers: { "content-type": "text/event-stream" } });
    },
  });
  gw = await startTestGateway({ fileConfig: replayConfig(`http://127.0.0.1:${upstream.port}`), recordSim: false });
  const { key } = await gw.account("Enterprise");
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await upstream?.stop(true);
}, 30_000);

describe.each(["sparse", "dense"])("a Chat answer in one burst, text past ASCII %s", (which) => {
  const expected = PIECES[which]!.join("");

  test("a Messages client streams every character", async () => {
    const final = await anthropic.messages.stream({ model: "fast", max_tokens: 4096, messages: [{ role: "user", content: which }] }).finalMessage();
    expect(final.content.map((block) => (block.type === "text" ? block.text : "")).join("")).toBe(expected);
    expect(final.stop_reason).toBe("end_turn");
  });

  test("a Responses client streams every character", async () => {
    const final = await openai.responses.stream({ model: "fast", input: which }).finalResponse();
    expect(final.output_text).toBe(expected);
    expect(final.status).toBe("completed");
  });
});

/**
 * Streams decoded and encoded at once share the pipe's lists of a read's events and pieces (each
 * emptied before its next use): each client gets its own answer and nothing of another's.
 */
test("bursts translated at once each reach their own client whole", async () => {
  const streams = Array.from({ length: 12 }, async (_, n) => {
    const final = await anthropic.messages.stream({ model: "fast", max_tokens: 4096, messages: [{ role: "user", content: `answer ${n}` }] }).finalMessage();
    return final.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  });
  const texts = await Promise.all(streams);
  expect(texts).toEqual(texts.map((_, n) => ownPieces(n).join("")));
});
