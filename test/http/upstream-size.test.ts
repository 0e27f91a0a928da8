import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { knobConfig, startKnobUpstream, type KnobUpstream } from "../helpers/start-knob-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Issue 18 item 4: a non-streamed upstream answer larger than the cap, and a stream event longer
 * than the cap, end the request (502, or the format's error event) without the gateway holding
 * more than the cap. The gateway runs in this process: its peak RSS (VmHWM, reset before each
 * request) is this process's. Before the caps, a 200 MB answer took the peak up by about 575 MB and
 * a 20 MB line without a newline by about 370 MB (and was passed on).
 */

const CAP = 8 * 1024 * 1024;
const MB = 1024 * 1024;
/** Generous: the cap, the chunks in flight, and what the upstream in this process holds. */
const PEAK_GROWTH_LIMIT = 64 * MB;

let upstream: KnobUpstream;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  upstream = startKnobUpstream();
  gw = await startTestGateway({ fileConfig: knobConfig(upstream.url, { maxUpstreamBodyBytes: CAP, maxUpstreamEventBytes: CAP }) });
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
}, 30_000);

/** This process's resident set now, and its peak since the last reset. */
function memory(): { rss: number; peak: number } {
  const text = readFileSync("/proc/self/status", "utf8");
  const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
  return { rss: kb("VmRSS") * 1024, peak: kb("VmHWM") * 1024 };
}

/** Runs `work` and returns how far the peak RSS rose above the RSS before it. */
async function peakGrowth(work: () => Promise<void>): Promise<number> {
  Bun.gc(true);
  writeFileSync("/proc/self/clear_refs", "5");
  const before = memory().rss;
  await work();
  return memory().peak - before;
}

const post = async (path: string, body: object): Promise<{ status: number; text: string }> => {
  const response = await fetch(gw.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
};

const cases = [
  ["chat", "fast", "same-format"],
  ["chat", "normal", "translated from messages"],
  ["messages", "normal", "same-format"],
  ["responses", "fast", "translated from chat"],
] as const;

function body(format: "chat" | "messages" | "responses", tier: string, text: string, stream: boolean): object {
  if (format === "messages") return { model: tier, max_tokens: 64, stream, messages: [{ role: "user", content: text }] };
  if (format === "chat") return { model: tier, stream, messages: [{ role: "user", content: text }] };
  return { model: tier, stream, input: text };
}
const PATHS = { chat: "/v1/chat/completions", messages: "/v1/messages", responses: "/v1/responses" } as const;

describe("a 200 MB non-streamed answer", () => {
  test.each(cases)("%s client, tier %s (%s): 502 in the caller's shape, the upstream let go, the peak RSS within the cap", async (format, tier) => {
    const id = `body-${format}-${tier}`;
    let result = { status: 0, text: "" };
    const growth = await peakGrowth(async () => {
      result = await post(PATHS[format], body(format, tier, `[knob bodyBytes=200000000 id=${id}]`, false));
    });
    expect(result.status).toBe(502);
    expect(result.text).toContain(`upstream answer larger than ${CAP} bytes`);
    await upstream.waitGoneId(id);
    expect(growth).toBeLessThan(PEAK_GROWTH_LIMIT);
  });

  test("an answer within the cap is passed whole", async () => {
    const result = await post(PATHS.chat, body("chat", "fast", "[knob bodyBytes=4000000]", false));
    expect(result.status).toBe(200);
    const answer = JSON.parse(result.text) as { choices: Array<{ message: { content: string } }> };
    expect(answer.choices[0]!.message.content).toHaveLength(4_000_000);
  });
});

describe("a 20 MB stream line without a newline", () => {
  test.each(cases)("%s client, tier %s (%s): a 502, nothing of it passed on, the peak RSS within the cap", async (format, tier) => {
    let result = { status: 0, text: "" };
    const growth = await peakGrowth(async () => {
      result = await post(PATHS[format], body(format, tier, "[knob lineBytes=20000000]", true));
    });
    // The line follows the first event, which only opens the stream: a stream commits at its
    // first content on either path, so this is still an HTTP error.
    expect(result.status).toBe(502);
    expect(result.text).toContain(`upstream sent a stream event larger than ${CAP} bytes`);
    expect(result.text).not.toContain("aaaaaaaa");
    expect(result.text.length).toBeLessThan(100_000);
    expect(growth).toBeLessThan(PEAK_GROWTH_LIMIT);
  });
});
