/**
 * prom-client's classes the gateway uses, each loaded from its own file. The package's index also
 * loads Summary (with tdigest), Pushgateway (with `node:http` and `node:https`) and the cluster
 * aggregator, none of which the gateway uses: in a bare script, the index left 1.84 MB and 16,776
 * objects on the heap after a full collection, these files 0.90 MB and 9,309. Every full collection
 * marks what the heap holds, and under load one follows every eden collection (see size-process.ts).
 * The default metrics are registered from their own files too (collect-default-metrics.ts).
 */
export { default as Counter } from "prom-client/lib/counter";
export { default as Gauge } from "prom-client/lib/gauge";
export { default as Histogram } from "prom-client/lib/histogram";
export { default as Registry } from "prom-client/lib/registry";
export type { HistogramConfiguration, LabelValues } from "prom-client";
