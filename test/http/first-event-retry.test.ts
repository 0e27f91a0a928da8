import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { knobConfig, KNOB_TIER_API, startKnobUpstream, type KnobUpstream, KNOB_FORMATS, KNOB_PATHS, knobRequest, type KnobFormat } from "../helpers/start-knob-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * An upstream stream that fails before any content (its first event is the API's error event, or
 * the error follows the opening `message_start` / `response.created` at once) has sent the client
 * nothing: the same model is called again, as for an HTTP 5xx, on the same-format path and on the
 * translated one alike, and the gateway's final answer is an HTTP error that tells the SDKs to retry.
 */

const RETRIES = { attempts: 2, budgetMs: 10_000, baseDelayMs: 1, maxDelayMs: 2 };

let upstream: KnobUpstream;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  upstream = startKnobUpstream();
  gw = await startTestGateway({ fileConfig: knobConfig(upstream.url, { retries: RETRIES }) });
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
}, 30_000);

/** Per upstream API, the knobs of a stream that fails before its first content. */
const EARLY_FAILURES: Record<KnobFormat, readonly (readonly [string, string])[]> = {
  messages: [
    ["overloaded_error as the first event", "errorAt=0"],
    ["overloaded_error right after message_start", "errorAt=1"],
  ],
  chat: [["an error chunk as the first event", "errorAt=0"]],
  responses: [
    ["an error event right after response.created", "errorAt=1"],
    ["response.failed right after response.created", "failedAt=1"],
  ],
};

const TIERS = Object.keys(KNOB_TIER_API) as (keyof typeof KNOB_TIER_API)[];
const CASES = TIERS.flatMap((tier) => {
  const api = KNOB_TIER_API[tier];
  return EARLY_FAILURES[api].flatMap(([what, knob]) => KNOB_FORMATS.map((format) => [`${format} client, ${api} upstream (${format === api ? "same format" : "translated"}): ${what}`, format, tier, knob] as const));
});

describe("a stream that fails before its first content is retried on the same model", () => {
  test.each(CASES)("%s", async (_name, format, tier, knob) => {
    const before = upstream.arrived;
    const res = await fetch(gw.url + KNOB_PATHS[format], {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
      body: JSON.stringify(knobRequest(format, tier, `early failure [knob ${knob}]`)),
    });
    const text = await res.text();
    // Nothing was committed: an HTTP error, not a stream that carries one.
    expect({ status: res.status, contentType: res.headers.get("content-type") }).toMatchObject({ status: expect.any(Number), contentType: expect.stringContaining("application/json") });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(res.headers.get("x-should-retry")).toBe("true");
    expect(JSON.parse(text)).toHaveProperty("error");
    // The first call and both retries reached the one model of the tier.
    expect(upstream.arrived - before).toBe(1 + RETRIES.attempts);
  });
});
