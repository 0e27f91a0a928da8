import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createMetrics } from "../../src/ops/create-metrics.ts";
import type { RequestRecord } from "../../src/canonical/request-record.ts";

/** Counters are summed in a map between scrapes; what a scrape shows must be what prom-client counted before. */
const config = loadConfig({});
const tier = Object.keys(config.tiers)[0]!;
const model = Object.keys(config.models)[0]!;
const record = (fields: Partial<RequestRecord> = {}): RequestRecord => ({
  requestId: "r",
  startedAt: 0,
  endpoint: "chat",
  stream: false,
  tier,
  model,
  source: "rule",
  status: 200,
  clientAborted: false,
  latencyMs: 12,
  ttfbMs: 3,
  cacheHit: false,
  attempts: 1,
  warnings: [],
  ...fields,
});

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

describe("metrics summed between scrapes", () => {
  const requestSeries = `routelane_requests_total{endpoint="chat",tier="${tier}",model="${model}",source="rule",status="200",stream="false"}`;

  test("counts keep adding up across scrapes", async () => {
    const metrics = createMetrics(() => config);
    for (let i = 0; i < 3; i++) metrics.observe(record());
    expect(sample(await metrics.render(), requestSeries)).toBe(3);
    for (let i = 0; i < 2; i++) metrics.observe(record());
    metrics.cacheLookup("decision", true);
    metrics.upstreamAttempt(model, "ok");
    const text = await metrics.render();
    expect(sample(text, requestSeries)).toBe(5);
    expect(sample(text, 'routelane_cache_lookups_total{cache="decision",result="hit"}')).toBe(1);
    expect(sample(text, 'routelane_cache_lookups_total{cache="response",result="miss"}')).toBe(0);
    expect(sample(text, `routelane_upstream_attempts_total{model="${model}",outcome="ok"}`)).toBe(1);
    expect(sample(text, `routelane_request_duration_seconds_count{endpoint="chat",tier="${tier}",stream="false"}`)).toBe(5);
  });

  test("a token kind first counted with 0 still shows as a 0 series", async () => {
    const metrics = createMetrics(() => config);
    metrics.observe(record({ usage: { inputTokens: 7, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } }));
    const text = await metrics.render();
    expect(sample(text, `routelane_tokens_total{tier="${tier}",model="${model}",kind="input"}`)).toBe(7);
    expect(sample(text, `routelane_tokens_total{tier="${tier}",model="${model}",kind="output"}`)).toBe(0);
  });

  test("a token count prom-client refuses still throws at once, not at the next scrape", async () => {
    const metrics = createMetrics(() => config);
    metrics.observe(record());
    expect(() => metrics.observe(record({ usage: { inputTokens: -1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } }))).toThrow();
    expect(sample(await metrics.render(), requestSeries)).toBe(2);
  });
});
