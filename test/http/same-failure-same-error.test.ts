import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { knobConfig, KNOB_TIER_API, startKnobUpstream, type KnobUpstream, KNOB_FORMATS, KNOB_PATHS, knobRequest, type KnobFormat } from "../helpers/start-knob-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Issue 20 item 3: one failure of the upstream reads the same to the client whichever path its
 * answer took: a malformed event, a stream cut short, a connection reset, before or after the
 * first byte, passed through or translated. The OpenAI APIs show what the gateway found wrong with
 * an upstream's answer as `upstream_error`; the Messages API has no such type (`api_error`).
 */

let upstream: KnobUpstream;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  upstream = startKnobUpstream();
  gw = await startTestGateway({ fileConfig: knobConfig(upstream.url) });
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
}, 30_000);

const TIERS = Object.keys(KNOB_TIER_API) as Array<keyof typeof KNOB_TIER_API>;
const EXPECTED_TYPE: Record<KnobFormat, string> = { messages: "api_error", chat: "upstream_error", responses: "upstream_error" };

/** The status and the error's type (and code, where the API has one) the client got, in its stream's last event or its error body. */
async function failureOf(format: KnobFormat, tier: string, text: string): Promise<string> {
  const res = await fetch(gw.url + KNOB_PATHS[format], {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(knobRequest(format, tier, text)),
  });
  const answer = await res.text();
  const last = res.status === 200 ? answer.trimEnd().split("\n\n").at(-1)!.split("data: ")[1]! : answer;
  const { error } = JSON.parse(last) as { error: { type: string; code?: string } };
  return `${res.status} ${error.type}${error.code !== undefined ? ` ${error.code}` : ""}`;
}

const FAILURES: ReadonlyArray<readonly [what: string, knob: string, status: number]> = [
  ["a malformed event after the first byte", "malformedAt=5", 200],
  ["an event cut short by the end of the body", "truncateAt=6", 200],
  ["a connection reset mid-stream", "cutAfter=5", 200],
  ["a malformed first event", "malformedAt=0", 502],
  ["a body that ends in the first event", "truncateAt=0", 502],
];

describe("the same upstream failure gets the same status and type on every path", () => {
  for (const [what, knob, status] of FAILURES) {
    test.each(KNOB_FORMATS)(`${what}: %s client, same-format and translated alike`, async (format) => {
      const seen: Record<string, string> = {};
      for (const tier of TIERS) seen[`${tier} (${KNOB_TIER_API[tier]})`] = await failureOf(format, tier, `hello [knob ${knob}]`);
      const type = EXPECTED_TYPE[format];
      const expected = `${status} ${type}${format === "messages" ? "" : ` ${type}`}`;
      expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((path) => [path, expected])));
    });
  }
});
