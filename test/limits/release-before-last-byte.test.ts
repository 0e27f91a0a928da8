import { describe, expect, test } from "bun:test";
import { knobConfig, startKnobUpstream, KNOB_FORMATS, KNOB_PATHS, type KnobFormat } from "../helpers/start-knob-upstream.ts";
import { startTestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Issue 17 item 6: the concurrency slot is free before the last byte of an answer goes out, so a
 * client that never has more than its limit open, and sends its next request as soon as the last
 * byte of the previous one has arrived, is never refused. For a stream that byte is the end of its
 * terminal event (`message_stop`, `[DONE]`, `response.completed`): the client stops reading there.
 * The upstream leaves a gap between its last event and the end of its body, as real ones do (the
 * slot used to wait for that end).
 */

const LIMIT = 4;
const PER_WORKER = 60;
const TIERS = ["fast", "normal", "smart"] as const;
const TERMINAL: Record<KnobFormat, string> = { messages: '"type":"message_stop"}\n\n', chat: "data: [DONE]\n\n", responses: '"type":"response.completed"' };

/** Reads a stream up to the end of its terminal event, and no further. */
async function readToTerminal(response: Response, format: KnobFormat): Promise<void> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended without its terminal event: ${text.slice(-200)}`);
    text += decoder.decode(value, { stream: true });
    const at = text.indexOf(TERMINAL[format]);
    if (at >= 0 && text.indexOf("\n\n", at) >= 0) break;
  }
  await reader.cancel();
}

function body(format: KnobFormat, tier: string, stream: boolean): object {
  const text = "hi [knob words=5 delayMs=60 closeAfterMs=60]";
  if (format === "messages") return { model: tier, max_tokens: 64, stream, messages: [{ role: "user", content: text }] };
  if (format === "chat") return { model: tier, stream, messages: [{ role: "user", content: text }] };
  return { model: tier, stream, input: text };
}

/** `LIMIT` clients, each sending its next request when the last byte of the previous has arrived. */
async function run(redis: boolean): Promise<{ statuses: Map<number, number>; total: number }> {
  const upstream = startKnobUpstream();
  const gw = await startTestGateway({ fileConfig: knobConfig(upstream.url), redis });
  try {
    const { accountId, key } = await gw.account("Enterprise");
    // The Starter plan's concurrency, without its rate limit (hundreds of requests a minute).
    await gw.store.updateAccount(accountId, { limits: { concurrentRequests: LIMIT, requestsPerMinute: null, tokensPerMonth: null } });
    const statuses = new Map<number, number>();
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; i < PER_WORKER; i++) {
        // Every worker goes through all 18 combinations of format, tier (same-format or translated) and stream.
        const combination = (i + 5 * w) % 18;
        const format = KNOB_FORMATS[combination % 3]!;
        const tier = TIERS[Math.floor(combination / 3) % 3]!;
        const stream = combination >= 9;
        const response = await fetch(gw.url + KNOB_PATHS[format], {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
          body: JSON.stringify(body(format, tier, stream)),
        });
        if (stream && response.status === 200) await readToTerminal(response, format);
        else await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: LIMIT }, (_, w) => worker(w)));
    return { statuses, total: LIMIT * PER_WORKER };
  } finally {
    await gw.stop();
    upstream.stop();
  }
}

describe("a client within its concurrency limit is never refused", () => {
  test("in-process limits: 240 requests, streamed and not, every format and path", async () => {
    const { statuses, total } = await run(false);
    expect(Object.fromEntries(statuses)).toEqual({ 200: total });
  }, 120_000);

  test.skipIf(!process.env.REDIS_URL)("Redis limits: 240 requests, streamed and not, every format and path", async () => {
    const { statuses, total } = await run(true);
    expect(Object.fromEntries(statuses)).toEqual({ 200: total });
  }, 120_000);
});
