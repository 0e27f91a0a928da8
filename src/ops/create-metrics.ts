import { collectDefaultMetrics } from "./collect-default-metrics.ts";
import { Counter, Gauge, Registry } from "./prom-client-parts.ts";
import { BatchedHistogram } from "./batched-histogram.ts";
import type { Config } from "../config/schema.ts";
import type { RecordEndpoint, RequestObserver, RequestRecord } from "../canonical/request-record.ts";

export type BreakerState = "closed" | "open" | "half_open";
export type CacheName = "response" | "decision";

/** What the pipeline, the limiter and the usage writer call; every label value is checked against config or a fixed set. */
export interface GatewayMetrics {
  readonly registry: Registry;
  /** Counts and times a finished request. */
  readonly observe: RequestObserver;
  upstreamAttempt(model: string, outcome: "ok" | "error"): void;
  /** A failover away from `model` to the next one in the pool. */
  failover(model: string): void;
  breakerState(model: string, state: BreakerState): void;
  cacheLookup(cache: CacheName, hit: boolean): void;
  limitRefused(kind: string): void;
  /** Read at scrape time: in-flight requests and streams. */
  setInFlight(read: () => { requests: number; streams: number }): void;
  /** Read at scrape time: usage rows waiting to be written. */
  setUsageBacklog(read: () => number): void;
  /** Read at scrape time: characters of request text whose parsed pieces are kept for the next turn. */
  setParseMemoChars(read: () => number): void;
  /** Where the degraded states of shared stores are read (1 = Redis unreachable, running in process). */
  setDegraded(read: () => { limits: boolean; responseCacheL2: boolean }): void;
  /** Prometheus text exposition. */
  render(): Promise<string>;
}

const ENDPOINTS: ReadonlySet<RecordEndpoint> = new Set(["messages", "chat", "responses", "count_tokens"]);
/** The `x-router-source` values of the spec. */
const SOURCES: ReadonlySet<string> = new Set(["rule", "default", "continuation", "sticky", "smartplus"]);
const LIMIT_KINDS: ReadonlySet<string> = new Set(["rpm", "tpm", "concurrency", "monthly_tokens", "budget", "plan"]);
const BREAKER_VALUE: Readonly<Record<BreakerState, number>> = { closed: 0, half_open: 1, open: 2 };
const OTHER = "other";
const NONE = "none";

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TTFB_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function status(code: number): string {
  return Number.isInteger(code) && code >= 100 && code <= 599 ? String(code) : OTHER;
}

/**
 * Counter increments of the request path, summed per label set in a plain map and handed to
 * prom-client when the counter is read (its `collect`, run by every scrape). prom-client's own
 * `inc` hashes and validates the label object on every call; here a request pays one string key
 * and one map lookup. The label sets are bounded (every value is checked), so is the map. A value
 * prom-client would refuse goes to it at once, so it throws where it always did.
 */
function createCounterBatch<L extends string>() {
  const pending = new Map<string, { readonly labels: Partial<Record<L, string>>; n: number; shown: boolean }>();
  let counter: Counter<L> | undefined;
  return {
    add(key: string, labels: () => Partial<Record<L, string>>, by = 1): void {
      if (!counter || !Number.isFinite(by) || by < 0) {
        counter?.inc(labels(), by);
        return;
      }
      const entry = pending.get(key);
      if (entry) entry.n += by;
      else pending.set(key, { labels: labels(), n: by, shown: false });
    },
    /** The counter's `collect`: a label set first seen with 0 still shows, as `inc(labels, 0)` makes it. */
    flush(this: void): void {
      if (!counter) return;
      for (const entry of pending.values()) {
        if (entry.n === 0 && entry.shown) continue;
        counter.inc(entry.labels, entry.n);
        entry.n = 0;
        entry.shown = true;
      }
    },
    bind(target: Counter<L>): void {
      counter = target;
    },
  };
}

/**
 * Prometheus metrics through prom-client. Label values for tiers and models come from the current
 * config (read through `config()`, so a reload's new names are accepted at once); anything else a
 * request could put there becomes `other`, which keeps the series count bounded.
 */
export function createMetrics(config: () => Config): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics(registry, "routelane_process_");
  const tier = (value: string | undefined): string => (value === undefined ? NONE : value in config().tiers ? value : OTHER);
  const model = (value: string | undefined): string => (value === undefined ? NONE : value in config().models ? value : OTHER);
  const endpoint = (value: RecordEndpoint): string => (ENDPOINTS.has(value) ? value : OTHER);
  const source = (value: string | undefined): string => (value === undefined ? NONE : SOURCES.has(value) ? value : OTHER);

  const requestBatch = createCounterBatch<"endpoint" | "tier" | "model" | "source" | "status" | "stream">();
  const requests = new Counter({
    name: "routelane_requests_total",
    help: "Finished requests by endpoint, tier, model, routing source and HTTP status.",
    labelNames: ["endpoint", "tier", "model", "source", "status", "stream"] as const,
    registers: [registry],
    collect: requestBatch.flush,
  });
  requestBatch.bind(requests);
  const latency = new BatchedHistogram({
    name: "routelane_request_duration_seconds",
    help: "Time from arrival to the last byte sent.",
    labelNames: ["endpoint", "tier", "stream"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const ttfb = new BatchedHistogram({
    name: "routelane_time_to_first_byte_seconds",
    help: "Time from arrival to the first byte of the body sent.",
    labelNames: ["endpoint", "tier", "stream"] as const,
    buckets: TTFB_BUCKETS,
    registers: [registry],
  });
  const tokenBatch = createCounterBatch<"tier" | "model" | "kind">();
  const tokens = new Counter({
    name: "routelane_tokens_total",
    help: "Tokens reported by the upstream, by tier, model and kind.",
    labelNames: ["tier", "model", "kind"] as const,
    registers: [registry],
    collect: tokenBatch.flush,
  });
  tokenBatch.bind(tokens);
  const streamErrors = new Counter({
    name: "routelane_stream_errors_total",
    help: "Streams that ended with an error event after their first byte (the upstream's fault or the gateway's; never a client that left).",
    labelNames: ["endpoint", "tier"] as const,
    registers: [registry],
  });
  const clientAborts = new Counter({
    name: "routelane_client_aborts_total",
    help: "Requests whose client went away before the answer was complete (before its first byte, or in the middle of a stream).",
    labelNames: ["endpoint", "tier", "stream"] as const,
    registers: [registry],
  });
  const attemptBatch = createCounterBatch<"model" | "outcome">();
  const attempts = new Counter({
    name: "routelane_upstream_attempts_total",
    help: "Calls made to upstream models, by model and outcome.",
    labelNames: ["model", "outcome"] as const,
    registers: [registry],
    collect: attemptBatch.flush,
  });
  attemptBatch.bind(attempts);
  const failovers = new Counter({
    name: "routelane_upstream_failovers_total",
    help: "Failovers away from a model to the next in its pool.",
    labelNames: ["model"] as const,
    registers: [registry],
  });
  const breaker = new Gauge({
    name: "routelane_circuit_breaker_state",
    help: "Circuit-breaker state per model: 0 closed, 1 half-open, 2 open.",
    labelNames: ["model"] as const,
    registers: [registry],
  });
  const cacheBatch = createCounterBatch<"cache" | "result">();
  const cache = new Counter({
    name: "routelane_cache_lookups_total",
    help: "Response- and decision-cache lookups by result.",
    labelNames: ["cache", "result"] as const,
    registers: [registry],
    collect: cacheBatch.flush,
  });
  const limits = new Counter({
    name: "routelane_limit_refusals_total",
    help: "Requests refused by a limit, by kind.",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  let readInFlight = (): { requests: number; streams: number } => ({ requests: 0, streams: 0 });
  new Gauge({
    name: "routelane_in_flight_requests",
    help: "Requests being served (streams included).",
    registers: [registry],
    collect() {
      this.set(readInFlight().requests);
    },
  });
  new Gauge({
    name: "routelane_in_flight_streams",
    help: "Streamed answers being sent.",
    registers: [registry],
    collect() {
      this.set(readInFlight().streams);
    },
  });
  let readBacklog = (): number => 0;
  new Gauge({
    name: "routelane_usage_writer_backlog",
    help: "Usage rows waiting to be written.",
    registers: [registry],
    collect() {
      this.set(readBacklog());
    },
  });
  let readParseMemo = (): number => 0;
  new Gauge({
    name: "routelane_parse_memo_chars",
    help: "Bytes of big request bodies' text (UTF-8) whose parsed pieces are kept for the conversation's next turn (with the parsed values, about 6 bytes of memory a byte of text).",
    registers: [registry],
    collect() {
      this.set(readParseMemo());
    },
  });
  let readDegraded = (): { limits: boolean; responseCacheL2: boolean } => ({ limits: false, responseCacheL2: false });
  new Gauge({
    name: "routelane_redis_degraded",
    help: "1 while Redis cannot be reached and the part runs on in-process state (limits counted per instance; no shared cache level).",
    labelNames: ["part"],
    registers: [registry],
    collect() {
      const now = readDegraded();
      this.set({ part: "limits" }, now.limits ? 1 : 0);
      this.set({ part: "response_cache" }, now.responseCacheL2 ? 1 : 0);
    },
  });
  for (const cacheName of ["response", "decision"] as const) for (const result of ["hit", "miss"]) cache.inc({ cache: cacheName, result }, 0);
  cacheBatch.bind(cache);

  const observe = (record: RequestRecord): void => {
    const t = tier(record.tier);
    const e = endpoint(record.endpoint);
    const s = record.stream ? "true" : "false";
    const m = model(record.model);
    const src = source(record.source);
    const code = status(record.status);
    // Label values never hold "|" (config names and fixed sets), so the joined key is unambiguous.
    requestBatch.add(`${e}|${t}|${m}|${src}|${code}|${s}`, () => ({ endpoint: e, tier: t, model: m, source: src, status: code, stream: s }));
    const timingKey = `${e}|${t}|${s}`;
    const timingLabels = () => ({ endpoint: e, tier: t, stream: s });
    latency.series(timingKey, timingLabels).observe(record.latencyMs / 1000);
    if (record.ttfbMs !== undefined) ttfb.series(timingKey, timingLabels).observe(record.ttfbMs / 1000);
    if (record.clientAborted) clientAborts.inc({ endpoint: e, tier: t, stream: s });
    else if (record.streamError !== undefined) streamErrors.inc({ endpoint: e, tier: t });
    if (record.usage) {
      tokenBatch.add(`${t}|${m}|input`, () => ({ tier: t, model: m, kind: "input" }), record.usage.inputTokens);
      tokenBatch.add(`${t}|${m}|output`, () => ({ tier: t, model: m, kind: "output" }), record.usage.outputTokens);
    }
  };

  return {
    registry,
    observe,
    upstreamAttempt: (name, outcome) => {
      const m = model(name);
      attemptBatch.add(`${m}|${outcome}`, () => ({ model: m, outcome }));
    },
    failover: (name) => failovers.inc({ model: model(name) }),
    breakerState: (name, state) => breaker.set({ model: model(name) }, BREAKER_VALUE[state]),
    cacheLookup: (name, hit) => {
      const result = hit ? "hit" : "miss";
      cacheBatch.add(`${name}|${result}`, () => ({ cache: name, result }));
    },
    limitRefused: (kind) => limits.inc({ kind: LIMIT_KINDS.has(kind) ? kind : OTHER }),
    setInFlight: (read) => void (readInFlight = read),
    setUsageBacklog: (read) => void (readBacklog = read),
    setParseMemoChars: (read) => void (readParseMemo = read),
    setDegraded: (read) => void (readDegraded = read),
    render: () => registry.metrics(),
  };
}
