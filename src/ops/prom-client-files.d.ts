// The parts of prom-client the gateway uses, by their own files (see prom-client-parts.ts and
// collect-default-metrics.ts): each class file's `module.exports` is the index's export of the same
// name, each default metric's a function of the registry and the defaults' config.
declare module "prom-client/lib/counter" {
  export { Counter as default } from "prom-client";
}
declare module "prom-client/lib/gauge" {
  export { Gauge as default } from "prom-client";
}
declare module "prom-client/lib/histogram" {
  export { Histogram as default } from "prom-client";
}
declare module "prom-client/lib/registry" {
  export { Registry as default } from "prom-client";
}
declare module "prom-client/lib/metrics/*" {
  import type { DefaultMetricsCollectorConfiguration, PrometheusContentType, Registry } from "prom-client";
  /** One of the default metrics' files: registers its metrics, as `collectDefaultMetrics` calls it. */
  const register: (registry: Registry, config: DefaultMetricsCollectorConfiguration<PrometheusContentType>) => void;
  export default register;
}
