import eventLoopLag from "prom-client/lib/metrics/eventLoopLag";
import gc from "prom-client/lib/metrics/gc";
import heapSizeAndUsed from "prom-client/lib/metrics/heapSizeAndUsed";
import heapSpacesSizeAndUsed from "prom-client/lib/metrics/heapSpacesSizeAndUsed";
import osMemoryHeap from "prom-client/lib/metrics/osMemoryHeap";
import processHandles from "prom-client/lib/metrics/processHandles";
import processMaxFileDescriptors from "prom-client/lib/metrics/processMaxFileDescriptors";
import processOpenFileDescriptors from "prom-client/lib/metrics/processOpenFileDescriptors";
import processRequests from "prom-client/lib/metrics/processRequests";
import processResources from "prom-client/lib/metrics/processResources";
import processStartTime from "prom-client/lib/metrics/processStartTime";
import version from "prom-client/lib/metrics/version";
import { Counter, type Registry } from "./prom-client-parts.ts";

/**
 * The process's CPU counters, as prom-client's `processCpuTotal` registers them without exemplars:
 * each scrape adds the user and system time since the last. Its file loads `@opentelemetry/api`
 * for exemplars the gateway never asks for: 51 files, 0.37 MB of heap in a bare script.
 */
function registerCpuCounters(registry: Registry, prefix: string): void {
  let last = process.cpuUsage();
  const registers = [registry];
  const user: Counter = new Counter({
    name: `${prefix}process_cpu_user_seconds_total`,
    help: "Total user CPU time spent in seconds.",
    registers,
    // One counter's collect sets all three, as prom-client's does.
    collect() {
      const now = process.cpuUsage();
      const userMicros = now.user - last.user;
      const systemMicros = now.system - last.system;
      last = now;
      user.inc(userMicros / 1e6);
      system.inc(systemMicros / 1e6);
      total.inc((userMicros + systemMicros) / 1e6);
    },
  });
  const system = new Counter({ name: `${prefix}process_cpu_system_seconds_total`, help: "Total system CPU time spent in seconds.", registers });
  const total = new Counter({ name: `${prefix}process_cpu_seconds_total`, help: "Total user and system CPU time spent in seconds.", registers });
}

/**
 * prom-client's `collectDefaultMetrics`, metric for metric and in its order (its defaults: the
 * event loop sampled every 10 ms), but for the CPU counters, which are registered here.
 */
export function collectDefaultMetrics(registry: Registry, prefix: string): void {
  registerCpuCounters(registry, prefix);
  const config = { register: registry, prefix, eventLoopMonitoringPrecision: 10 };
  const rest = [
    processStartTime,
    osMemoryHeap,
    processOpenFileDescriptors,
    processMaxFileDescriptors,
    eventLoopLag,
    // As prom-client: only where the runtime can list its active resources.
    ...(typeof process.getActiveResourcesInfo === "function" ? [processResources] : []),
    processHandles,
    processRequests,
    heapSizeAndUsed,
    heapSpacesSizeAndUsed,
    version,
    gc,
  ];
  for (const register of rest) register(registry, config);
}
