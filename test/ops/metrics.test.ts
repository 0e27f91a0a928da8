import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createMetrics } from "../../src/ops/create-metrics.ts";
import type { RequestRecord } from "../../src/canonical/request-record.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DEFAULT_EFFORT_CONFIG } from "../helpers/same-format-config.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

const METRICS_TOKEN = "metrics-token-0123456789";

/** The value of one series in a text exposition, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const set = /\{(.*)\}/.exec(line)?.[1] ?? "";
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) return Number(line.split(" ").at(-1));
  }
  return 0;
}

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: DEFAULT_EFFORT_CONFIG, env: { ROUTELANE_METRICS_TOKEN: METRICS_TOKEN } });
  key = (await gw.account("Pro")).key;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(() => gw.stop(), DATABASE_HOOK_TIMEOUT_MS);

const post = (path: string, body: unknown, apiKey = key): Promise<Response> =>
  fetch(`${gw.url}${path}`, { method: "POST", headers: { "x-api-key": apiKey, "content-type": "application/json", "anthropic-version": "2023-06-01" }, body: JSON.stringify(body) });
const scrape = async (): Promise<string> => (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();

describe("GET /metrics after known traffic", () => {
  test("counts requests by endpoint, tier, model, source and status; histograms and gauges are there", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await post("/v1/messages", { model: "fast", max_tokens: 32, messages: [{ role: "user", content: "hello" }] });
      expect(res.status).toBe(200);
      await res.text();
    }
    const stream = await post("/v1/chat/completions", { model: "normal", stream: true, messages: [{ role: "user", content: "hello" }] });
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain("[DONE]");
    const forbidden = await post("/v1/responses", { model: "smart-plus", input: "hello" });
    expect(forbidden.status).toBe(403);
    await forbidden.text();
    const unauthenticated = await post("/v1/messages", { model: "fast", max_tokens: 8, messages: [] }, "rl_wrong");
    expect(unauthenticated.status).toBe(401);
    await unauthenticated.text();

    const text = await scrape();
    // The same conversation twice: decided by the tier's default, then kept on its model.
    expect(sample(text, "routelane_requests_total", { endpoint: "messages", tier: "fast", model: "sim-fast", source: "default", status: "200", stream: "false" })).toBe(1);
    expect(sample(text, "routelane_requests_total", { endpoint: "messages", tier: "fast", model: "sim-fast", source: "sticky", status: "200", stream: "false" })).toBe(1);
    expect(sample(text, "routelane_requests_total", { endpoint: "chat", tier: "normal", status: "200", stream: "true" })).toBe(1);
    expect(sample(text, "routelane_requests_total", { endpoint: "responses", status: "403" })).toBe(1);
    expect(sample(text, "routelane_requests_total", { endpoint: "messages", tier: "none", status: "401" })).toBe(1);
    expect(sample(text, "routelane_request_duration_seconds_count", { endpoint: "messages", tier: "fast" })).toBe(2);
    expect(sample(text, "routelane_time_to_first_byte_seconds_count", { endpoint: "chat", tier: "normal", stream: "true" })).toBe(1);
    expect(sample(text, "routelane_tokens_total", { tier: "fast", model: "sim-fast", kind: "output" })).toBeGreaterThan(0);
    expect(sample(text, "routelane_in_flight_streams")).toBe(0);
    // The scrape itself is the one request in flight.
    expect(sample(text, "routelane_in_flight_requests")).toBe(1);
    // The usage rows of the answered requests may still wait for their batch: at most those.
    expect(text).toMatch(/^routelane_usage_writer_backlog [0-5]$/m);
    // Every routed request looked its decision up; the first of each text missed.
    expect(sample(text, "routelane_cache_lookups_total", { cache: "decision", result: "miss" })).toBeGreaterThan(0);
  }, 30_000);

  test("hooks for upstream attempts, failovers, breaker, caches and limits show up", async () => {
    gw.gateway.metrics.upstreamAttempt("sim-fast", "error");
    gw.gateway.metrics.failover("sim-fast");
    gw.gateway.metrics.breakerState("sim-fast", "open");
    gw.gateway.metrics.cacheLookup("response", true);
    gw.gateway.metrics.limitRefused("rpm");
    gw.gateway.metrics.setUsageBacklog(() => 7);
    const text = await scrape();
    expect(sample(text, "routelane_upstream_attempts_total", { model: "sim-fast", outcome: "error" })).toBe(1);
    expect(sample(text, "routelane_upstream_failovers_total", { model: "sim-fast" })).toBe(1);
    expect(sample(text, "routelane_circuit_breaker_state", { model: "sim-fast" })).toBe(2);
    expect(sample(text, "routelane_cache_lookups_total", { cache: "response", result: "hit" })).toBe(1);
    expect(sample(text, "routelane_limit_refusals_total", { kind: "rpm" })).toBe(1);
    expect(sample(text, "routelane_usage_writer_backlog")).toBe(7);
  });

  test.each([
    [undefined, 401],
    ["Bearer wrong-token-0123456789", 401],
    [`Bearer ${METRICS_TOKEN}`, 200],
  ])("with ROUTELANE_METRICS_TOKEN set, authorization %p → %p", async (authorization, status) => {
    const res = await fetch(`${gw.url}/metrics`, { headers: authorization ? { authorization } : {} });
    expect(res.status).toBe(status);
    if (status === 200) expect(res.headers.get("content-type")).toStartWith("text/plain");
    await res.text();
  });
});

describe("label values come from config, never from request input", () => {
  const record = (over: Partial<RequestRecord>): RequestRecord => ({
    requestId: "r1", startedAt: 0, endpoint: "chat", stream: false, status: 200, clientAborted: false, latencyMs: 5, cacheHit: false, attempts: 1, warnings: [], ...over,
  });
  test.each([
    [{ tier: "fast", model: "sim-fast", source: "default" }, { tier: "fast", model: "sim-fast", source: "default" }],
    [{ tier: "gpt-4o", model: "claude-x", source: "whatever" }, { tier: "other", model: "other", source: "other" }],
    [{}, { tier: "none", model: "none", source: "none" }],
  ])("record %p is counted with labels %p", async (fields, labels) => {
    const metrics = createMetrics(() => loadConfig({}));
    metrics.observe(record(fields));
    metrics.upstreamAttempt("../../etc", "ok");
    metrics.limitRefused("made-up");
    const text = await metrics.render();
    expect(sample(text, "routelane_requests_total", labels)).toBe(1);
    expect(sample(text, "routelane_upstream_attempts_total", { model: "other" })).toBe(1);
    expect(sample(text, "routelane_limit_refusals_total", { kind: "other" })).toBe(1);
  });
});
