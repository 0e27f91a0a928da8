import type { LoadResult } from "./load-result.ts";
import { percentiles } from "./percentiles.ts";
import { newRunText, varyingBody, type Scenario } from "./scenarios.ts";

export interface BuiltinLoadOptions {
  readonly connections: number;
  /** Run for this long… */
  readonly durationSec?: number;
  /** …or until this many requests were started (warm-up). */
  readonly requests?: number;
}

/** A growable Float64Array: allocated once up front so recording a sample never allocates. */
function createSamples(initial: number): { push(value: number): void; values(): Float64Array; count(): number } {
  let values = new Float64Array(initial);
  let count = 0;
  return {
    push(value) {
      if (count === values.length) {
        const bigger = new Float64Array(values.length * 2);
        bigger.set(values);
        values = bigger;
      }
      values[count++] = value;
    },
    values: () => values,
    count: () => count,
  };
}

/** One request, body read to the end. Returns [total ms, first-byte ms] or throws. */
async function timeOne(scenario: Scenario, init: RequestInit): Promise<{ totalMs: number; ttfbMs: number; status: number }> {
  const start = performance.now();
  const response = await fetch(scenario.url, init);
  let ttfbMs = -1;
  if (response.body) {
    // Read chunk by chunk (not arrayBuffer()) so a stream's first byte can be timed separately.
    for await (const _chunk of response.body) {
      if (ttfbMs < 0) ttfbMs = performance.now() - start;
    }
  }
  const totalMs = performance.now() - start;
  return { totalMs, ttfbMs: ttfbMs < 0 ? totalMs : ttfbMs, status: response.status };
}

/**
 * The load generator used when wrk is not installed: `connections` concurrent loops, each sending
 * the scenario's request and reading the whole answer before sending the next (closed loop, like
 * wrk). Latencies are sorted once at the end.
 */
export async function runBuiltinLoad(scenario: Scenario, options: BuiltinLoadOptions): Promise<LoadResult> {
  const init: RequestInit = { method: "POST", headers: scenario.headers, body: scenario.body };
  // A varying scenario: each request its own body, the marker replaced by this run's own text and the request's number.
  const varying = varyingBody(scenario);
  const head = varying === undefined ? "" : `${varying.head}${newRunText()}`;
  const latencies = createSamples(1 << 16);
  const ttfbs = createSamples(1 << 16);
  let errors = 0;
  let firstError: string | undefined;
  let started = 0;
  const start = performance.now();
  const deadline = options.durationSec === undefined ? Number.POSITIVE_INFINITY : start + options.durationSec * 1000;
  const limit = options.requests ?? Number.POSITIVE_INFINITY;

  const loop = async (): Promise<void> => {
    while (started < limit && performance.now() < deadline) {
      started++;
      try {
        const { totalMs, ttfbMs, status } = await timeOne(scenario, varying === undefined ? init : { ...init, body: `${head}${started}${varying.tail}` });
        latencies.push(totalMs);
        ttfbs.push(ttfbMs);
        if (status < 200 || status >= 300) {
          errors++;
          firstError ??= `HTTP ${status}`;
        }
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));

  const elapsedSec = (performance.now() - start) / 1000;
  const [p50, p99] = percentiles(latencies.values(), latencies.count(), [50, 99]);
  const [ttfb50, ttfb99] = percentiles(ttfbs.values(), ttfbs.count(), [50, 99]);
  return {
    tool: "builtin",
    requests: latencies.count(),
    durationSec: elapsedSec,
    requestsPerSec: latencies.count() / elapsedSec,
    p50Ms: p50!,
    p99Ms: p99!,
    errors,
    ttfbP50Ms: ttfb50!,
    ttfbP99Ms: ttfb99!,
    ...(firstError === undefined ? {} : { firstError }),
  };
}
