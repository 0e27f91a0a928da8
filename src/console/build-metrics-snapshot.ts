import type { Registry } from "prom-client";

/** A histogram summed over all but one label: bucket counts by upper bound (cumulative, as Prometheus keeps them). */
export interface HistogramSeries {
  readonly buckets: ReadonlyArray<readonly [number, number]>;
  readonly count: number;
  readonly sum: number;
}

/**
 * The gateway's own metrics as the console's Overview reads them: cumulative counts since start
 * (the page turns two snapshots into rates and percentiles), gauges as they are now.
 */
export interface MetricsSnapshot {
  readonly at: number;
  /** Finished requests by tier, model and status. */
  readonly requests: ReadonlyArray<{ readonly tier: string; readonly model: string; readonly status: string; readonly n: number }>;
  /** Latency and time to first byte, by tier. */
  readonly latency: Readonly<Record<string, HistogramSeries>>;
  readonly ttfb: Readonly<Record<string, HistogramSeries>>;
  readonly responseCache: { readonly hit: number; readonly miss: number };
  readonly breakers: ReadonlyArray<{ readonly model: string; readonly state: "closed" | "half_open" | "open" }>;
  readonly usageBacklog: number;
  readonly inFlight: { readonly requests: number; readonly streams: number };
}

type MetricJson = { name: string; values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string }> };

const BREAKER_STATES = ["closed", "half_open", "open"] as const;

function histogramByTier(metric: MetricJson | undefined): Record<string, HistogramSeries> {
  const byTier = new Map<string, { buckets: Map<number, number>; count: number; sum: number }>();
  for (const value of metric?.values ?? []) {
    const tier = String(value.labels.tier ?? "none");
    let entry = byTier.get(tier);
    if (!entry) byTier.set(tier, (entry = { buckets: new Map(), count: 0, sum: 0 }));
    if (value.metricName?.endsWith("_bucket")) {
      const le = value.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(value.labels.le);
      entry.buckets.set(le, (entry.buckets.get(le) ?? 0) + value.value);
    } else if (value.metricName?.endsWith("_count")) entry.count += value.value;
    else if (value.metricName?.endsWith("_sum")) entry.sum += value.value;
  }
  const out: Record<string, HistogramSeries> = {};
  for (const [tier, entry] of byTier) {
    // JSON has no Infinity: the last bucket is the count itself.
    const buckets = [...entry.buckets].filter(([le]) => Number.isFinite(le)).sort((a, b) => a[0] - b[0]);
    out[tier] = { buckets, count: entry.count, sum: entry.sum };
  }
  return out;
}

/** Reads the registry (what `/metrics` renders) into the Overview's snapshot. */
export async function buildMetricsSnapshot(registry: Registry): Promise<MetricsSnapshot> {
  const metrics = (await registry.getMetricsAsJSON()) as unknown as MetricJson[];
  const find = (name: string) => metrics.find((m) => m.name === name);
  const requests = new Map<string, { tier: string; model: string; status: string; n: number }>();
  for (const { value, labels } of find("routelane_requests_total")?.values ?? []) {
    const tier = String(labels.tier);
    const model = String(labels.model);
    const status = String(labels.status);
    const key = `${tier}|${model}|${status}`;
    const entry = requests.get(key);
    if (entry) entry.n += value;
    else requests.set(key, { tier, model, status, n: value });
  }
  const cache = { hit: 0, miss: 0 };
  for (const { value, labels } of find("routelane_cache_lookups_total")?.values ?? []) {
    if (labels.cache === "response" && (labels.result === "hit" || labels.result === "miss")) cache[labels.result] += value;
  }
  const gauge = (name: string) => find(name)?.values[0]?.value ?? 0;
  return {
    at: Date.now(),
    requests: [...requests.values()],
    latency: histogramByTier(find("routelane_request_duration_seconds")),
    ttfb: histogramByTier(find("routelane_time_to_first_byte_seconds")),
    responseCache: cache,
    breakers: (find("routelane_circuit_breaker_state")?.values ?? []).map(({ value, labels }) => ({
      model: String(labels.model),
      state: BREAKER_STATES[Math.max(0, Math.min(2, Math.round(value)))]!,
    })),
    usageBacklog: gauge("routelane_usage_writer_backlog"),
    inFlight: { requests: gauge("routelane_in_flight_requests"), streams: gauge("routelane_in_flight_streams") },
  };
}
