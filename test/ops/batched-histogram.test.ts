import { describe, expect, test } from "bun:test";
import { Histogram, Registry } from "prom-client";
import { BatchedHistogram } from "../../src/ops/batched-histogram.ts";

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 1, 10];
type Label = "endpoint" | "stream";

/** The same observations into prom-client's histogram and the batched one, each on its own registry. */
function both(observations: ReadonlyArray<readonly [Record<Label, string>, number]>) {
  const reference = new Registry();
  const batched = new Registry();
  const options = { name: "t_seconds", help: "Test histogram.", labelNames: ["endpoint", "stream"] as const, buckets: BUCKETS };
  const plain = new Histogram<Label>({ ...options, registers: [reference] });
  const fast = new BatchedHistogram<Label>({ ...options, registers: [batched] });
  for (const [labels, value] of observations) {
    plain.observe(labels, value);
    fast.series(`${labels.endpoint}|${labels.stream}`, () => labels).observe(value);
  }
  return { reference, batched, fast };
}

const chat = { endpoint: "chat", stream: "false" };
const messages = { endpoint: "messages", stream: "true" };

describe("BatchedHistogram", () => {
  test.each([
    ["no observation", []],
    ["one value per bucket edge", BUCKETS.map((b) => [chat, b] as const)],
    ["values between edges, above the last and zero", [[chat, 0], [chat, 0.007], [chat, 0.3], [chat, 42], [chat, 10.000001]] as const],
    ["two series interleaved", [[chat, 0.004], [messages, 0.02], [chat, 0.02], [messages, 5], [messages, 0.06]] as const],
  ])("renders what prom-client renders: %s", async (_name, observations) => {
    const { reference, batched } = both(observations);
    const text = await batched.metrics();
    expect(text).toBe(await reference.metrics());
    expect(await batched.getMetricsAsJSON()).toEqual(await reference.getMetricsAsJSON());
    if (observations.length > 0) expect(text).toContain('t_seconds_bucket{le="+Inf",endpoint=');
  });

  test("a non-finite value is not counted; reset empties every series", async () => {
    const { batched, fast } = both([[chat, 0.02]]);
    fast.series("chat|false", () => chat).observe(Number.NaN);
    fast.series("chat|false", () => chat).observe(Number.POSITIVE_INFINITY);
    expect(await batched.metrics()).toContain('t_seconds_count{endpoint="chat",stream="false"} 1');
    batched.resetMetrics();
    expect(await batched.metrics()).not.toContain("t_seconds_count");
  });

  test("prom-client's own entries refuse instead of counting where nothing reads", () => {
    const { fast } = both([]);
    const plain: Histogram<Label> = fast;
    expect(() => plain.observe(chat, 1)).toThrow("observe through series");
    expect(() => plain.labels(chat).observe(1)).toThrow("observe through series");
    expect(() => plain.startTimer(chat)()).toThrow("observe through series");
  });
});
