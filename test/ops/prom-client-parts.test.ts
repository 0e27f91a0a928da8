import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as promClient from "prom-client";
import { Counter, Gauge, Histogram, Registry } from "../../src/ops/prom-client-parts.ts";

const ROOT = join(import.meta.dir, "..", "..");

describe("prom-client's parts", () => {
  test("are the classes the package's index exports", () => {
    expect(Counter).toBe(promClient.Counter);
    expect(Gauge).toBe(promClient.Gauge);
    expect(Histogram).toBe(promClient.Histogram);
    expect(Registry).toBe(promClient.Registry);
  });

  test("the metrics load them without the index, Summary, Pushgateway, the cluster aggregator or @opentelemetry/api", () => {
    // A process of its own: this one has loaded the index above.
    const script = `await import(${JSON.stringify(join(ROOT, "src/ops/create-metrics.ts"))});
      const paths = Object.keys(require.cache);
      console.log(JSON.stringify({ prom: paths.filter((path) => path.includes("/prom-client/")).map((path) => path.slice(path.indexOf("/prom-client/") + 13)), otel: paths.filter((path) => path.includes("/@opentelemetry/")).length }));`;
    const run = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT, stderr: "pipe" });
    expect(run.exitCode).toBe(0);
    const loaded: { prom: string[]; otel: number } = JSON.parse(run.stdout.toString());
    expect(loaded.prom).toContain("lib/counter.js");
    expect(loaded.prom).toContain("lib/metrics/eventLoopLag.js");
    for (const unused of ["index.js", "lib/summary.js", "lib/pushgateway.js", "lib/cluster.js", "lib/defaultMetrics.js", "lib/metrics/processCpuTotal.js"]) expect(loaded.prom).not.toContain(unused);
    expect(loaded.otel).toBe(0);
  });
});
