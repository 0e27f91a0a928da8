import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as promClient from "prom-client";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "../../src/ops/prom-client-parts.ts";

const ROOT = join(import.meta.dir, "..", "..");

describe("prom-client's parts", () => {
  test("are the classes and the function the package's index exports", () => {
    expect(Counter).toBe(promClient.Counter);
    expect(Gauge).toBe(promClient.Gauge);
    expect(Histogram).toBe(promClient.Histogram);
    expect(Registry).toBe(promClient.Registry);
    expect(collectDefaultMetrics).toBe(promClient.collectDefaultMetrics);
  });

  test("the metrics load them without the index, Summary, Pushgateway or the cluster aggregator", () => {
    // A process of its own: this one has loaded the index above.
    const script = `await import(${JSON.stringify(join(ROOT, "src/ops/create-metrics.ts"))});
      console.log(JSON.stringify(Object.keys(require.cache).filter((path) => path.includes("/prom-client/")).map((path) => path.slice(path.indexOf("/prom-client/") + 13))));`;
    const run = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT, stderr: "pipe" });
    expect(run.exitCode).toBe(0);
    const loaded: string[] = JSON.parse(run.stdout.toString());
    expect(loaded).toContain("lib/counter.js");
    expect(loaded).toContain("lib/defaultMetrics.js");
    for (const unused of ["index.js", "lib/summary.js", "lib/pushgateway.js", "lib/cluster.js"]) expect(loaded).not.toContain(unused);
  });
});
