import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import { ChartFigure, type Series } from "./chart.tsx";
import { intervalBetween, type Interval, type Snapshot } from "./metrics-math.ts";

const POLL_MS = 2000;
/** Two minutes of points. */
const KEEP = 60;

const clock = (at: number): string => new Date(at).toLocaleTimeString([], { hour12: false });

function seriesOf(intervals: Interval[], pick: (i: Interval) => Record<string, number>): Series[] {
  const names = [...new Set(intervals.flatMap((i) => Object.keys(pick(i))))].sort();
  return names.map((name) => ({ label: name, data: intervals.map((i) => pick(i)[name] ?? 0) }));
}

/** Live charts from the gateway's own metrics: a snapshot every 2 s, rates and percentiles between them. */
export function Overview() {
  const [snapshots, setSnapshots] = useState<Snapshot[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stopped = false;
    const poll = async () => {
      try {
        const snapshot = await api<Snapshot>("GET", "/console/api/metrics");
        if (!stopped) setSnapshots((all) => [...all.slice(-KEEP), snapshot]);
        setError(null);
      } catch (e) {
        setError(e instanceof Error ? e.message : String(e));
      }
    };
    void poll();
    const timer = setInterval(poll, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  const intervals = snapshots.slice(1).map((s, i) => intervalBetween(snapshots[i]!, s));
  const labels = intervals.map((i) => clock(i.at));
  const last = snapshots.at(-1);
  const recent = intervals.slice(-5);
  const avg = (pick: (i: Interval) => number | null): string => {
    const values = recent.map(pick).filter((v): v is number => v !== null);
    return values.length === 0 ? "–" : (values.reduce((a, b) => a + b, 0) / values.length).toFixed(2);
  };
  const requestsTotal = last ? last.requests.reduce((sum, r) => sum + r.n, 0) : 0;

  return (
    <>
      <h1>Overview</h1>
      {error && <p class="error" role="alert">Metrics could not be read: {error}</p>}
      <section class="stats" aria-label="Now">
        <div class="stat"><b data-stat="rps">{avg((i) => i.rps)}</b><span>requests/s (last 10 s)</span></div>
        <div class="stat"><b data-stat="requests">{requestsTotal}</b><span>requests since start</span></div>
        <div class="stat"><b>{avg((i) => i.errorRate)}</b><span>% errors</span></div>
        <div class="stat"><b>{last?.inFlight.requests ?? "–"}</b><span>in flight ({last?.inFlight.streams ?? 0} streams)</span></div>
        <div class="stat"><b data-stat="backlog">{last?.usageBacklog ?? "–"}</b><span>usage rows waiting</span></div>
      </section>
      <div class="grid">
        <ChartFigure title="Requests per second by tier" kind="line" unit="req/s" labels={labels} series={seriesOf(intervals, (i) => i.rpsByTier)} tableRows={10} />
        <ChartFigure title="Requests per second by model" kind="line" unit="req/s" labels={labels} series={seriesOf(intervals, (i) => i.rpsByModel)} tableRows={10} />
        <ChartFigure
          title="Latency and time to first byte"
          kind="line"
          unit="ms"
          labels={labels}
          series={[
            { label: "latency p50", data: intervals.map((i) => i.latencyP50) },
            { label: "latency p99", data: intervals.map((i) => i.latencyP99) },
            { label: "TTFB p50", data: intervals.map((i) => i.ttfbP50) },
            { label: "TTFB p99", data: intervals.map((i) => i.ttfbP99) },
          ]}
          tableRows={10}
        />
        <ChartFigure
          title="Error rate and cache hit rate"
          kind="line"
          unit="%"
          labels={labels}
          series={[
            { label: "errors", data: intervals.map((i) => i.errorRate) },
            { label: "cache hits", data: intervals.map((i) => i.cacheHitRate) },
          ]}
          tableRows={10}
        />
        <ChartFigure title="Usage-writer backlog" kind="line" unit="rows" labels={labels} series={[{ label: "rows waiting", data: snapshots.slice(1).map((s) => s.usageBacklog) }]} tableRows={10} />
        <section class="card" aria-labelledby="breakers">
          <h2 id="breakers">Circuit breakers</h2>
          <table>
            <thead><tr><th scope="col">model</th><th scope="col">state</th></tr></thead>
            <tbody>
              {(last?.breakers ?? []).map((b) => (
                <tr>
                  <td>{b.model}</td>
                  <td><span class={`badge ${b.state === "closed" ? "ok" : b.state === "open" ? "bad" : "warn"}`}>{b.state.replace("_", "-")}</span></td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </>
  );
}
