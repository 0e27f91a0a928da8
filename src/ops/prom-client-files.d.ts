// The parts of prom-client the gateway uses, by their own files (see prom-client-parts.ts and
// collect-default-metrics.ts): each class file's `module.exports` is the index's export of the same
// name, each default metric's a function of the registry and the defaults' config.
declare module "prom-client/lib/counter" {
  const Counter: typeof import("prom-client").Counter;
  export default Counter;
}
declare module "prom-client/lib/gauge" {
  const Gauge: typeof import("prom-client").Gauge;
  export default Gauge;
}
declare module "prom-client/lib/histogram" {
  const Histogram: typeof import("prom-client").Histogram;
  export default Histogram;
}
declare module "prom-client/lib/registry" {
  const Registry: typeof import("prom-client").Registry;
  export default Registry;
}
declare module "prom-client/lib/metrics/*" {
  /** One of the default metrics' files: registers its metrics, as `collectDefaultMetrics` calls it. */
  const register: (registry: import("prom-client").Registry, config: import("prom-client").DefaultMetricsCollectorConfiguration<"text/plain; version=0.0.4; charset=utf-8">) => void;
  export default register;
}
