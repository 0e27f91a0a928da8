import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { rejectionOf } from "../helpers/rejection-of.ts";
import { knobConfig, KNOB_TIER_API, startKnobUpstream, type KnobUpstream, KNOB_PATHS, knobRequest, type KnobFormat } from "../helpers/start-knob-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { usageRowOf } from "../helpers/usage-row.ts";

/**
 * Issue 17 item 4: an upstream event after the first that is malformed or cut short is never
 * forwarded; the client gets the format's own error event and no clean terminator, the answer is
 * not cached, and usage records what was streamed. Every client format, same-format and translated.
 */

let upstream: KnobUpstream;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  upstream = startKnobUpstream();
  // The response cache is on: a broken answer must not be stored.
  gw = await startTestGateway({ fileConfig: { ...knobConfig(upstream.url), responseCache: { enabled: true }, usage: { flushIntervalMs: 20 } } });
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
}, 30_000);

const CLEAN_END: Record<KnobFormat, RegExp> = { messages: /message_stop/, chat: /\[DONE\]/, responses: /response\.completed/ };
const TIERS = Object.keys(KNOB_TIER_API) as Array<keyof typeof KNOB_TIER_API>;

async function stream(format: KnobFormat, tier: string, text: string): Promise<{ status: number; text: string; requestId: string; cache: string | null }> {
  const res = await fetch(gw.url + KNOB_PATHS[format], {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(knobRequest(format, tier, text)),
  });
  return { status: res.status, text: await res.text(), requestId: res.headers.get("x-router-request-id") ?? "", cache: res.headers.get("x-router-cache") };
}

/** The format's error event, as the last event of the stream. */
function expectErrorEnding(format: KnobFormat, text: string): void {
  const last = text.trimEnd().split("\n\n").at(-1)!;
  if (format === "messages") expect(last).toStartWith("event: error\ndata: ");
  else if (format === "chat") expect(last).toStartWith('data: {"error":');
  else expect(last).toMatch(/^event: error\ndata: \{"type":"error"/);
  expect(text).not.toMatch(CLEAN_END[format]);
}

const words = (text: string): number => text.split("alpha").length - 1;

const cases: Array<[KnobFormat, keyof typeof KNOB_TIER_API, string]> = [];
for (const format of ["messages", "chat", "responses"] as const) {
  for (const tier of TIERS) cases.push([format, tier, KNOB_TIER_API[tier] === format ? "same-format" : `translated from ${KNOB_TIER_API[tier]}`]);
}

describe("a malformed event after the first ends the stream with the format's error event", () => {
  test.each(cases)("%s client, tier %s (%s)", async (format, tier) => {
    for (const garbage of ["brace", "inner", "text"]) {
      for (const oneChunk of [0, 1]) {
        const prompt = `hello ${garbage} ${oneChunk} [knob malformedAt=5 garbage=${garbage} oneChunk=${oneChunk}]`;
        const first = await stream(format, tier, prompt);
        expect(first.status).toBe(200);
        expect(first.text).not.toContain("broken");
        expect(first.text).not.toContain("oops");
        expectErrorEnding(format, first.text);
        expect(first.text).toContain("malformed");
        // Not cached: the same request goes to the upstream again, and fails again.
        const again = await stream(format, tier, prompt);
        expect(again.cache).not.toBe("hit");
        expectErrorEnding(format, again.text);
        // Billed for what was streamed: the words the client got, counted by the gateway.
        const row = await usageRowOf(gw, first.requestId);
        expect(row.estimated).toBe(true);
        expect(row.output).toBe(Math.max(1, words(first.text)));
        expect(row.input).toBeGreaterThan(0);
      }
    }
  });
});

describe("an event cut short by the end of the upstream's body is never forwarded", () => {
  test.each(cases)("%s client, tier %s (%s)", async (format, tier) => {
    const result = await stream(format, tier, "hello [knob truncateAt=6]");
    expect(result.status).toBe(200);
    expectErrorEnding(format, result.text);
    // Each path says in its words that the stream ended early (the decoders name what was missing).
    expect(result.text).toMatch(/upstream (Responses )?stream ended before/);
    // Every event the client got is whole: its data parses.
    for (const block of result.text.trimEnd().split("\n\n")) {
      const data = block.split("\n").find((line) => line.startsWith("data: "))?.slice(6);
      if (data !== undefined && data !== "[DONE]") expect(() => JSON.parse(data)).not.toThrow();
    }
    const row = await usageRowOf(gw, result.requestId);
    expect(row.output).toBe(Math.max(1, words(result.text)));
  });
});

describe("the official SDKs see the failure", () => {
  test("Messages", async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
    const error = await rejectionOf(anthropic.messages.stream({ model: "normal", max_tokens: 64, messages: [{ role: "user", content: "sdk [knob malformedAt=4]" }] }).finalMessage());
    expect(String(error)).toContain("malformed");
  });

  test("Chat and Responses", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const chat = await openai.chat.completions.create({ model: "fast", stream: true, messages: [{ role: "user", content: "sdk [knob malformedAt=4]" }] });
    const chatError = await rejectionOf(
      (async () => {
        for await (const _chunk of chat);
      })(),
    );
    expect(String(chatError)).toContain("malformed");
    const responsesError = await rejectionOf(openai.responses.stream({ model: "smart", input: "sdk [knob malformedAt=4]" }).finalResponse());
    expect(String(responsesError)).toContain("malformed");
  });
});
