import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { knobConfig, KNOB_TIER_API, startKnobUpstream, type KnobUpstream, KNOB_PATHS, knobRequest, type KnobFormat } from "../helpers/start-knob-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { usageRowOf } from "../helpers/usage-row.ts";

/**
 * Issue 18 item 2: every streamed token is billed. When the client leaves, the upstream cuts the
 * stream or ends it with an error event (or never reports usage), the usage row holds the input
 * tokens (the upstream's first usage event, or counted from the request) and the output tokens of
 * what was streamed, marked estimated. Every client format, same-format and translated.
 */

let upstream: KnobUpstream;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  upstream = startKnobUpstream();
  gw = await startTestGateway({ fileConfig: { ...knobConfig(upstream.url), usage: { flushIntervalMs: 20 } } });
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
}, 30_000);

type Tier = keyof typeof KNOB_TIER_API;
/** Events the knob upstream sends before its first word: Messages 2, Chat 1, Responses 3. */
const PREAMBLE: Record<KnobFormat, number> = { messages: 2, chat: 1, responses: 3 };
/** The upstream reports the input at the start only on Messages (`message_start`). */
const INPUT_AT_START = 50;
const PROMPT = "Please explain how a gateway bills the tokens of a stream that a client abandoned halfway through";

/** Words streamed: in the deltas only (a Responses stream repeats the text in its closing events). */
const words = (text: string): number => text.split(/"(?:delta|content)":"alpha |"text_delta","text":"alpha /).length - 1;

async function open(format: KnobFormat, tier: string, text: string, signal?: AbortSignal): Promise<Response> {
  return fetch(gw.url + KNOB_PATHS[format], {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(knobRequest(format, tier, text)),
    ...(signal ? { signal } : {}),
  });
}

/** Reads a stream until it holds `count` words, then leaves; returns what arrived. */
async function readWordsThenLeave(response: Response, count: number, client: AbortController): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (words(text) < count) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended after ${words(text)} words`);
    text += decoder.decode(value, { stream: true });
  }
  client.abort();
  return text;
}

const cases: Array<[KnobFormat, Tier, string]> = [];
for (const format of ["messages", "chat", "responses"] as const) {
  for (const tier of Object.keys(KNOB_TIER_API) as Tier[]) cases.push([format, tier, KNOB_TIER_API[tier] === format ? "same-format" : `translated from ${KNOB_TIER_API[tier]}`]);
}

/** Input: the upstream's own count where it gave one at the start, else the gateway's count of the prompt. */
function expectInput(tier: Tier, input: number): void {
  if (KNOB_TIER_API[tier] === "messages") expect(input).toBe(INPUT_AT_START);
  else {
    expect(input).toBeGreaterThan(10);
    expect(input).toBeLessThan(40);
  }
}

describe("a stream the client leaves is billed for what it was sent", () => {
  test.each(cases)("%s client, tier %s (%s)", async (format, tier) => {
    const sentWords = 10;
    const client = new AbortController();
    const gone = upstream.gone + 1;
    const response = await open(format, tier, `${PROMPT} [knob stallAfter=${PREAMBLE[KNOB_TIER_API[tier]] + sentWords}]`, client.signal);
    const requestId = response.headers.get("x-router-request-id")!;
    const received = await readWordsThenLeave(response, sentWords, client);
    expect(words(received)).toBe(sentWords);
    await upstream.waitGone(gone);
    const row = await usageRowOf(gw, requestId);
    expect(row.estimated).toBe(true);
    expect(row.output).toBe(sentWords);
    expectInput(tier, row.input);
  });
});

describe("a stream the upstream cuts, or ends with its error event, is billed for what was sent", () => {
  for (const [knob, label] of [
    ["cutAfter", "cut"],
    ["errorAt", "error event"],
  ] as const) {
    test.each(cases)(`${label}: %s client, tier %s (%s)`, async (format, tier) => {
      const response = await open(format, tier, `${PROMPT} [knob ${knob}=${PREAMBLE[KNOB_TIER_API[tier]] + 7}]`);
      const text = await response.text();
      expect(text).toMatch(/event: error|data: \{"error"/);
      expect(words(text)).toBe(7);
      const row = await usageRowOf(gw, response.headers.get("x-router-request-id")!);
      expect(row.estimated).toBe(true);
      expect(row.output).toBe(7);
      expectInput(tier, row.input);
    });
  }
});

describe("usage the upstream reports is billed as it is", () => {
  test.each(cases)("complete: %s client, tier %s (%s)", async (format, tier) => {
    const response = await open(format, tier, `${PROMPT} [knob words=12]`);
    await response.text();
    const row = await usageRowOf(gw, response.headers.get("x-router-request-id")!);
    expect(row).toMatchObject({ input: 50, output: 12, estimated: false });
  });

  test.each(cases)("never reported: %s client, tier %s (%s)", async (format, tier) => {
    const response = await open(format, tier, `${PROMPT} [knob words=12 noUsage=1]`);
    expect(words(await response.text())).toBe(12);
    const row = await usageRowOf(gw, response.headers.get("x-router-request-id")!);
    expect(row.estimated).toBe(true);
    expect(row.output).toBe(12);
    expectInput(tier, row.input);
  });
});
