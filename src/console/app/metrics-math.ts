/** The Overview's snapshot as the API sends it (see build-metrics-snapshot.ts). */
export interface Snapshot {
  at: number;
  requests: Array<{ tier: string; model: string; status: string; n: number }>;
  latency: Record<string, Histogram>;
  ttfb: Record<string, Histogram>;
  responseCache: { hit: number; miss: number };
  breakers: Array<{ model: string; state: "closed" | "half_open" | "open" }>;
  usageBacklog: number;
  inFlight: { requests: number; streams: number };
}

export interface Histogram {
  buckets: Array<[number, number]>;
  count: number;
  sum: number;
}

/** What happened between two snapshots. */
export interface Interval {
  at: number;
  rps: number;
  rpsByTier: Record<string, number>;
  rpsByModel: Record<string, number>;
  /** Share of requests answered with a status of 400 or more, 0–100; null without requests. */
  errorRate: number | null;
  latencyP50: number | null;
  latencyP99: number | null;
  ttfbP50: number | null;
  ttfbP99: number | null;
  /** Share of response-cache lookups that hit, 0–100; null without lookups. */
  cacheHitRate: number | null;
}

/** Merges the tiers' histograms and subtracts the earlier one: the requests of the interval. */
function histogramDelta(before: Record<string, Histogram>, after: Record<string, Histogram>): Histogram {
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const [tier, h] of Object.entries(after)) {
    const old = before[tier];
    count += h.count - (old?.count ?? 0);
    sum += h.sum - (old?.sum ?? 0);
    for (const [le, n] of h.buckets) {
      const previous = old?.buckets.find(([l]) => l === le)?.[1] ?? 0;
      buckets.set(le, (buckets.get(le) ?? 0) + n - previous);
    }
  }
  return { buckets: [...buckets].sort((a, b) => a[0] - b[0]), count, sum };
}

/** Prometheus's histogram_quantile: linear within the bucket that holds the rank; in ms. */
export function quantile(q: number, h: Histogram): number | null {
  if (h.count <= 0) return null;
  const rank = q * h.count;
  let lower = 0;
  let below = 0;
  for (const [le, cumulative] of h.buckets) {
    if (cumulative >= rank) {
      const inBucket = cumulative - below;
      const share = inBucket > 0 ? (rank - below) / inBucket : 0;
      return (lower + (le - lower) * share) * 1000;
    }
    lower = le;
    below = cumulative;
  }
  // Past the largest finite bound: the bound is all that can be said.
  return lower * 1000;
}

/** Rates, error share, percentiles and cache hit rate between two snapshots. */
export function intervalBetween(before: Snapshot, after: Snapshot): Interval {
  const seconds = Math.max(0.001, (after.at - before.at) / 1000);
  const previous = new Map(before.requests.map((r) => [`${r.tier}|${r.model}|${r.status}`, r.n]));
  const rpsByTier: Record<string, number> = {};
  const rpsByModel: Record<string, number> = {};
  let total = 0;
  let errors = 0;
  for (const r of after.requests) {
    const n = r.n - (previous.get(`${r.tier}|${r.model}|${r.status}`) ?? 0);
    if (n <= 0) continue;
    total += n;
    if (Number(r.status) >= 400) errors += n;
    rpsByTier[r.tier] = (rpsByTier[r.tier] ?? 0) + n / seconds;
    rpsByModel[r.model] = (rpsByModel[r.model] ?? 0) + n / seconds;
  }
  const latency = histogramDelta(before.latency, after.latency);
  const ttfb = histogramDelta(before.ttfb, after.ttfb);
  const hits = after.responseCache.hit - before.responseCache.hit;
  const lookups = hits + after.responseCache.miss - before.responseCache.miss;
  return {
    at: after.at,
    rps: total / seconds,
    rpsByTier,
    rpsByModel,
    errorRate: total > 0 ? (100 * errors) / total : null,
    latencyP50: quantile(0.5, latency),
    latencyP99: quantile(0.99, latency),
    ttfbP50: quantile(0.5, ttfb),
    ttfbP99: quantile(0.99, ttfb),
    cacheHitRate: lookups > 0 ? (100 * hits) / lookups : null,
  };
}
