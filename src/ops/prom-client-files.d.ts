// The parts of prom-client the gateway uses, by their own files (see prom-client-parts.ts): each
// file's `module.exports` is the index's export of the same name.
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
declare module "prom-client/lib/defaultMetrics" {
  const collectDefaultMetrics: typeof import("prom-client").collectDefaultMetrics;
  export default collectDefaultMetrics;
}
