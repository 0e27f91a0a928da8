import { describe, expect, test } from "bun:test";
import * as promClient from "prom-client";
import { collectDefaultMetrics } from "../../src/ops/collect-default-metrics.ts";
import { Registry } from "../../src/ops/prom-client-parts.ts";

const PREFIX = "routelane_process_";

/** A registry's HELP and TYPE lines, in the order it renders them. */
async function declarations(registry: promClient.Registry): Promise<string[]> {
  return (await registry.metrics()).split("\n").filter((line) => line.startsWith("# HELP") || line.startsWith("# TYPE"));
}

/** A sample's value in the text exposition. */
function sample(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no sample ${name}`);
  return Number(line.slice(name.length + 1));
}

describe("collectDefaultMetrics", () => {
  test("registers what prom-client's own registers, name for name, in its order", async () => {
    const ours = new Registry();
    collectDefaultMetrics(ours, PREFIX);
    const theirs = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: theirs, prefix: PREFIX });
    const expected = await declarations(theirs);
    expect(expected.length).toBeGreaterThan(40);
    expect(await declarations(ours)).toEqual(expected);
  });

  test("the CPU counters add the process's user and system time since the last scrape", async () => {
    const registry = new Registry();
    const before = process.cpuUsage();
    collectDefaultMetrics(registry, PREFIX);
    const first = await registry.metrics();
    // Some CPU spent between the scrapes.
    const end = Bun.nanoseconds() + 30e6;
    while (Bun.nanoseconds() < end);
    const second = await registry.metrics();
    const spent = process.cpuUsage(before);
    const user = sample(second, `${PREFIX}process_cpu_user_seconds_total`);
    const system = sample(second, `${PREFIX}process_cpu_system_seconds_total`);
    const total = sample(second, `${PREFIX}process_cpu_seconds_total`);
    expect(user).toBeGreaterThan(sample(first, `${PREFIX}process_cpu_user_seconds_total`));
    expect(user).toBeLessThanOrEqual(spent.user / 1e6);
    expect(system).toBeLessThanOrEqual(spent.system / 1e6);
    expect(total).toBeCloseTo(user + system, 9);
  });
});
