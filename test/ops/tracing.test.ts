import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NOOP_TRACING, startTracing } from "../../src/ops/start-tracing.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** A collector that keeps the spans of every OTLP/HTTP JSON export. */
function startCollector() {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      paths.push(new URL(request.url).pathname);
      const body = (await request.json()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      return Response.json({});
    },
  });
  return { server, spans, paths };
}

const collector = startCollector();
let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.server.url.origin } });
  key = (await gw.account("Enterprise")).key;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await gw.stop();
  collector.server.stop(true);
}, DATABASE_HOOK_TIMEOUT_MS);

describe("traces over OTLP/HTTP", () => {
  test("a request's span reaches the collector with its route attributes", async () => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "smart", max_tokens: 64, messages: [{ role: "user", content: "hello" }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    await gw.gateway.tracing.shutdown();
    expect(collector.paths).toContain("/v1/traces");
    const span = collector.spans.find((s) => s.name === "POST /v1/messages");
    expect(span).toBeDefined();
    const attributes = Object.fromEntries(span!.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
    expect(attributes).toMatchObject({ "routelane.tier": "smart", "routelane.model": "sim-smart", "http.response.status_code": 200 });
    // The pipeline's own spans hang under it: the routing decision and each upstream attempt.
    const children = collector.spans.filter((s) => s.parentSpanId === span!.spanId).map((s) => s.name);
    expect(children).toEqual(expect.arrayContaining(["routing", "upstream attempt"]));
  }, 30_000);

  test("child spans (routing, upstream attempts) share the trace and name their parent", async () => {
    const tracing = await startTracing({ endpoint: collector.server.url.origin, serviceVersion: "test" });
    const request = tracing.startSpan("request");
    request.child("routing", { "routelane.tier": "fast" }).end();
    const attempt = request.child("upstream attempt", { "routelane.model": "sim-fast", attempt: 1 });
    attempt.fail("status 503");
    attempt.end();
    request.end();
    await tracing.shutdown();
    const parent = collector.spans.find((s) => s.name === "request")!;
    // The gateway's own request of the test above exported spans of these names too: only this trace counts.
    const children = collector.spans.filter((s) => s.traceId === parent.traceId && (s.name === "routing" || s.name === "upstream attempt"));
    expect(children).toHaveLength(2);
    for (const child of children) {
      expect(child.traceId).toBe(parent.traceId);
      expect(child.parentSpanId).toBe(parent.spanId);
    }
  });

  test("without an endpoint: the shared no-op tracer, nothing loaded", async () => {
    const tracing = await startTracing({ endpoint: undefined, serviceVersion: "test" });
    expect(tracing).toBe(NOOP_TRACING);
    expect(tracing.enabled).toBe(false);
    expect(tracing.startSpan("a").child("b")).toBe(tracing.startSpan("c"));
  });
});
