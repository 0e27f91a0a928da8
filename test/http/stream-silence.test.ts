import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { knobConfig, KNOB_TIER_API, startKnobUpstream, type KnobUpstream, KNOB_PATHS, knobRequest, type KnobFormat } from "../helpers/start-knob-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { usageRowOf } from "../helpers/usage-row.ts";

/**
 * Issue 18 item 3: silence is not death. No server or socket timeout ends a stream (or a slow
 * answer) while its upstream is within its limits: a real 60 s pause finishes, with the default
 * settings, where Elysia's 30 s idle timeout used to reset the client's connection. A quiet stream
 * gets the format's keep-alives, and a stream silent past the idle limit ends with the format's
 * error event. The tests run concurrently: the file takes about as long as its longest pause.
 */

let upstream: KnobUpstream;
/** The default stream settings (15 s keep-alive, 5 min idle limit). */
let defaults: TestGateway;
/** Short ones: 200 ms keep-alive, 2 s idle limit. */
let short: TestGateway;
let defaultsKey: string;
let shortKey: string;

beforeAll(async () => {
  upstream = startKnobUpstream();
  defaults = await startTestGateway({ fileConfig: knobConfig(upstream.url) });
  short = await startTestGateway({ fileConfig: { ...knobConfig(upstream.url, { streamKeepaliveMs: 200, streamIdleTimeoutMs: 2000 }), usage: { flushIntervalMs: 20 } } });
  ({ key: defaultsKey } = await defaults.account("Enterprise"));
  ({ key: shortKey } = await short.account("Enterprise"));
}, 60_000);
afterAll(async () => {
  await defaults.stop();
  await short.stop();
  upstream.stop();
}, 60_000);

type Tier = keyof typeof KNOB_TIER_API;
const PREAMBLE: Record<KnobFormat, number> = { messages: 2, chat: 1, responses: 3 };
const CLEAN_END: Record<KnobFormat, string> = { messages: "event: message_stop", chat: "data: [DONE]", responses: "event: response.completed" };
const KEEPALIVE: Record<KnobFormat, string> = { messages: 'event: ping\ndata: {"type":"ping"}\n\n', chat: ": keepalive\n\n", responses: ": keepalive\n\n" };

async function call(gw: TestGateway, key: string, format: KnobFormat, tier: string, text: string, stream = true): Promise<{ status: number; text: string; requestId: string }> {
  const response = await fetch(gw.url + KNOB_PATHS[format], {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(knobRequest(format, tier, text, stream)),
  });
  return { status: response.status, text: await response.text(), requestId: response.headers.get("x-router-request-id") ?? "" };
}

const cases: Array<[KnobFormat, Tier, string]> = [];
for (const format of ["messages", "chat", "responses"] as const) {
  for (const tier of Object.keys(KNOB_TIER_API) as Tier[]) cases.push([format, tier, KNOB_TIER_API[tier] === format ? "same-format" : `translated from ${KNOB_TIER_API[tier]}`]);
}

const count = (text: string, part: string): number => text.split(part).length - 1;

describe("a 60 s pause with the default settings", () => {
  test.concurrent.each(cases)(
    "in the middle of a stream: %s client, tier %s (%s) finishes cleanly, kept alive",
    async (format, tier) => {
      const result = await call(defaults, defaultsKey, format, tier, `pause [knob words=8 pauseAfter=${PREAMBLE[KNOB_TIER_API[tier]] + 4} pauseMs=60000]`);
      expect(result.status).toBe(200);
      expect(result.text).toContain(CLEAN_END[format]);
      expect(result.text).not.toMatch(/event: error|data: \{"error"/);
      // Every 15 s of silence gets a keep-alive: three or four in 60 s.
      expect(count(result.text, KEEPALIVE[format])).toBeGreaterThanOrEqual(3);
    },
    120_000,
  );

  test.concurrent.each([true, false])(
    "before the first byte (stream %p): the answer arrives after 60 s",
    async (stream) => {
      const result = await call(defaults, defaultsKey, "chat", "fast", "late [knob words=3 delayMs=60000]", stream);
      expect(result.status).toBe(200);
      expect(result.text).toContain(stream ? "data: [DONE]" : '"finish_reason":"stop"');
    },
    120_000,
  );
});

describe("keep-alives the official SDKs read through", () => {
  test.concurrent(
    "Messages: ping events",
    async () => {
      const anthropic = new Anthropic({ baseURL: short.url, apiKey: shortKey, maxRetries: 0 });
      const message = await anthropic.messages.stream({ model: "normal", max_tokens: 64, messages: [{ role: "user", content: "[knob words=4 pauseAfter=3 pauseMs=1000]" }] }).finalMessage();
      expect(message.content).toMatchObject([{ type: "text", text: "alpha alpha alpha alpha " }]);
    },
    30_000,
  );

  test.concurrent(
    "Chat and Responses: SSE comment lines",
    async () => {
      const openai = new OpenAI({ baseURL: `${short.url}/v1`, apiKey: shortKey, maxRetries: 0 });
      const chat = await openai.chat.completions.create({ model: "fast", stream: true, messages: [{ role: "user", content: "[knob words=4 pauseAfter=2 pauseMs=1000]" }] });
      let text = "";
      for await (const chunk of chat) text += chunk.choices[0]?.delta.content ?? "";
      expect(text).toBe("alpha alpha alpha alpha ");
      const response = await openai.responses.stream({ model: "smart", input: "[knob words=4 pauseAfter=4 pauseMs=1000]" }).finalResponse();
      expect(response.output_text).toBe("alpha alpha alpha alpha ");
    },
    30_000,
  );

  test.concurrent.each(cases)(
    "raw: %s client, tier %s (%s)",
    async (format, tier) => {
      const result = await call(short, shortKey, format, tier, `[knob words=4 pauseAfter=${PREAMBLE[KNOB_TIER_API[tier]] + 2} pauseMs=1000]`);
      expect(result.text).toContain(CLEAN_END[format]);
      expect(count(result.text, KEEPALIVE[format])).toBeGreaterThanOrEqual(2);
    },
    30_000,
  );
});

describe("a stream silent past the idle limit", () => {
  test.concurrent.each(cases)(
    "%s client, tier %s (%s): the format's error event, the upstream let go, what was sent billed",
    async (format, tier) => {
      const id = `stall-${format}-${tier}`;
      const result = await call(short, shortKey, format, tier, `stall [knob stallAfter=${PREAMBLE[KNOB_TIER_API[tier]] + 3} id=${id}]`);
      expect(result.status).toBe(200);
      expect(result.text).toContain("upstream sent nothing for 2 s");
      expect(result.text).toContain("timeout_error");
      expect(result.text).not.toContain(CLEAN_END[format]);
      await upstream.waitGoneId(id);
      const row = await usageRowOf(short, result.requestId);
      expect(row).toMatchObject({ output: 3, estimated: true });
    },
    30_000,
  );
});
