/**
 * prom-client's classes the gateway uses, each loaded from its own file. The package's index also
 * loads Summary (with tdigest), Pushgateway (with `node:http` and `node:https`) and the cluster
 * aggregator, none of which the gateway uses: in a bare script, the index left 1.84 MB and 16,776
 * objects on the heap after a full collection, these files 0.90 MB and 9,309. Every full collection
 * marks what the heap holds, and under load one follows every eden collection (see size-process.ts).
 * The default metrics are registered from their own files too (collect-default-metrics.ts).
 */
import CounterClass from "prom-client/lib/counter";
import GaugeClass from "prom-client/lib/gauge";
import HistogramClass from "prom-client/lib/histogram";
import RegistryClass from "prom-client/lib/registry";

export type { HistogramConfiguration, LabelValues } from "prom-client";

export const Counter = CounterClass;
export type Counter<T extends string = string> = import("prom-client").Counter<T>;
export const Gauge = GaugeClass;
export type Gauge<T extends string = string> = import("prom-client").Gauge<T>;
export const Histogram = HistogramClass;
export type Histogram<T extends string = string> = import("prom-client").Histogram<T>;
export const Registry = RegistryClass;
export type Registry = import("prom-client").Registry;
