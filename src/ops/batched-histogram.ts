import { Histogram, type HistogramConfiguration, type LabelValues } from "./prom-client-parts.ts";

/** One label set's counts. */
interface Series {
  readonly labels: LabelValues<string>;
  /** Observations per bucket, not cumulative; the last slot is above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** One series of a `BatchedHistogram`, found once by its key. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** A sample as the registry renders it (what prom-client's own histogram hands over). */
interface ExportedSample {
  readonly labels: LabelValues<string>;
  readonly sharedLabels: LabelValues<string>;
  readonly value: number;
  readonly metricName: string;
  readonly exemplar?: null;
}

/**
 * A prom-client histogram for the request path. prom-client's `observe` converts, validates and
 * hashes the label object on every call, even through a child made by `labels()`; here a series
 * is found by a string key the caller already has, and an observation is a bucket search and three
 * additions. The registry renders it through the same export shape as prom-client's own
 * histogram, so the exposition text is the same line for line (a test compares them). Label
 * values must be valid already (the caller bounds them); a non-finite value is not counted.
 */
export class BatchedHistogram<L extends string> extends Histogram<L> {
  private readonly bounds: readonly number[];
  private readonly metricName: string;
  private readonly metricHelp: string;
  private readonly byKey = new Map<string, Series & HistogramSeries>();

  constructor(configuration: HistogramConfiguration<L> & { readonly buckets: readonly number[] }) {
    super(configuration);
    this.bounds = [...configuration.buckets].sort((a, b) => a - b);
    this.metricName = configuration.name;
    this.metricHelp = configuration.help;
  }

  /**
   * prom-client's own entries (`observe`, `labels`, `startTimer`; its constructor points `observe`
   * at these) would count where nothing reads: observations go through `series`.
   */
  observeWithoutExemplar(): never {
    throw new Error(`${this.metricName}: observe through series(key, labels)`);
  }

  observeWithExemplar(): never {
    return this.observeWithoutExemplar();
  }

  override labels(): never {
    return this.observeWithoutExemplar();
  }

  /** The series of one label set; `labels` runs only the first time `key` is seen. */
  series(key: string, labels: () => LabelValues<L>): HistogramSeries {
    const found = this.byKey.get(key);
    if (found) return found;
    const { bounds } = this;
    const series: Series & HistogramSeries = {
      labels: labels(),
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
      count: 0,
      observe(value) {
        if (!Number.isFinite(value)) return;
        let i = 0;
        while (i < bounds.length && value > bounds[i]!) i++;
        series.counts[i]! += 1;
        series.sum += value;
        series.count += 1;
      },
    };
    this.byKey.set(key, series);
    return series;
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset before this class's fields exist.
    (this.byKey as Map<string, Series> | undefined)?.clear();
  }

  /**
   * What the registry renders (prom-client's `get` reads it too, for the JSON form): per series its
   * cumulative buckets, `+Inf`, `_sum` and `_count`, in prom-client's order.
   */
  async getForPromString(): Promise<{ name: string; help: string; type: "histogram"; values: ExportedSample[]; aggregator: "sum" }> {
    const values: ExportedSample[] = [];
    const bucket = `${this.metricName}_bucket`;
    for (const series of this.byKey.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { le }, sharedLabels: series.labels, value: cumulative, metricName: bucket, exemplar: null });
      });
      values.push({ labels: { le: "+Inf" }, sharedLabels: series.labels, value: series.count, metricName: bucket, exemplar: null });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.metricName}_sum` });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.metricName}_count` });
    }
    return { name: this.metricName, help: this.metricHelp, type: "histogram", values, aggregator: "sum" };
  }
}
