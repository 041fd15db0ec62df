/**
 * Counters, gauges and histograms for the hot paths (every enqueue counts a trigger and an add
 * and sets the queue's depth; every reconcile and request observes a duration): prom-client hashes
 * and validates the labels on every `inc`, `set` and `observe`, which cost a fifth of the CPU of
 * 2,000 routes converging in bench/myproxy-routes.ts, and histograms still 4 % of the Widget
 * bench's operator (2026-11-26). These keep each series in a Map keyed by its label values, and
 * prom-client reads them when it collects — on every scrape and `registry.metrics()` — so what a
 * scrape reads is the same.
 */
import { Counter, Gauge, type LabelValues, type Metric, type Registry } from "prom-client";

/** What a metric is: its name, help, label names and registry. */
export interface MetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registry: Registry;
}

/** A tree of Maps keyed by one label value per level; the states of the series at its leaves. */
type SeriesTree<S> = Map<string, SeriesTree<S> | S>;

/**
 * One state per series, found by its label values in the label names' order: a Map per label,
 * not a joined key string, since building the string costs 5–8× the lookup (~400 against ~60 ns
 * for three labels, Node 20, 2026-11-26) and every enqueue makes three.
 */
class Series<L extends string, S extends { labels: LabelValues<L> }> {
  readonly #labelNames: readonly L[];
  readonly #create: (labels: LabelValues<L>) => S;
  #tree: SeriesTree<S> = new Map();
  #states: S[] = [];

  constructor(labelNames: readonly L[], create: (labels: LabelValues<L>) => S) {
    this.#labelNames = labelNames;
    this.#create = create;
  }

  /** The state of `labels`' series, created when new. */
  entry(labels: LabelValues<L>): S {
    let node = this.#tree;
    const last = this.#labelNames.length - 1;
    for (let i = 0; i < last; i++) {
      const value = String(labels[this.#labelNames[i] as L] ?? "");
      let next = node.get(value) as SeriesTree<S> | undefined;
      if (!next) {
        next = new Map();
        node.set(value, next);
      }
      node = next;
    }
    const leaf = last < 0 ? "" : String(labels[this.#labelNames[last] as L] ?? "");
    let state = node.get(leaf) as S | undefined;
    if (!state) {
      state = this.#create(labels);
      node.set(leaf, state);
      this.#states.push(state);
    }
    return state;
  }

  /** Every series' state, in the order they were created. */
  values(): readonly S[] {
    return this.#states;
  }

  /** Forgets every series. */
  clear(): void {
    this.#tree = new Map();
    this.#states = [];
  }
}

/** Values not yet handed to prom-client, by series. */
class Pending<L extends string> extends Series<L, { labels: LabelValues<L>; value: number }> {
  constructor(labelNames: readonly L[]) {
    super(labelNames, (labels) => ({ labels, value: 0 }));
  }

  /** Hands every entry to `apply` and forgets them. */
  drain(apply: (labels: LabelValues<L>, value: number) => void): void {
    for (const { labels, value } of this.values()) apply(labels, value);
    this.clear();
  }
}

/** A counter whose increments reach prom-client when it collects. */
export class BatchedCounter<L extends string> {
  readonly #pending: Pending<L>;

  constructor(config: MetricConfig<L>) {
    this.#pending = register(Counter, config, (metric, labels, value) => metric.inc(labels, value));
  }

  /** Adds `value` (default 1) to the series of `labels`. */
  inc(labels: LabelValues<L>, value = 1): void {
    this.#pending.entry(labels).value += value;
  }
}

/** A gauge whose latest value per series reaches prom-client when it collects. */
export class BatchedGauge<L extends string> {
  readonly #pending: Pending<L>;

  constructor(config: MetricConfig<L>) {
    this.#pending = register(Gauge, config, (metric, labels, value) => metric.set(labels, value));
  }

  /** Sets the series of `labels` to `value`. */
  set(labels: LabelValues<L>, value: number): void {
    this.#pending.entry(labels).value = value;
  }
}

/** Registers a prom-client metric of `Metric`'s kind that, when collected, `apply`s what is pending. */
function register<L extends string, M extends Counter<L> | Gauge<L>>(
  Metric: new (configuration: ConstructorParameters<typeof Counter<L>>[0]) => M,
  { name, help, labelNames, registry }: MetricConfig<L>,
  apply: (metric: M, labels: LabelValues<L>, value: number) => void,
): Pending<L> {
  const pending = new Pending(labelNames);
  const metric: M = new Metric({
    name,
    help,
    labelNames,
    registers: [registry],
    collect: () => pending.drain((labels, value) => apply(metric, labels, value)),
  });
  return pending;
}

/** One value of a collected metric, as prom-client's registry formats it. */
interface CollectedValue {
  labels: Partial<Record<string, string | number>>;
  value: number;
  metricName: string;
}

/** What prom-client's registry reads of a metric when it collects. */
interface CollectedMetric {
  name: string;
  help: string;
  type: "histogram";
  values: CollectedValue[];
  aggregator: "sum";
}

/** One histogram series: how many observations fell at or under each bound (not cumulated), their sum and count. */
interface HistogramSeries<L extends string> {
  readonly labels: LabelValues<L>;
  readonly counts: number[];
  sum: number;
  count: number;
}

/**
 * A histogram that counts each observation into its series' buckets itself and hands prom-client
 * the cumulated buckets when it collects, in the shape and order prom-client's own `Histogram`
 * gives (`_bucket` per bound and `+Inf`, `_sum`, `_count`), registered as a metric of `registry`.
 */
export class BatchedHistogram<L extends string> {
  /** What prom-client's registry reads of a metric. */
  readonly name: string;
  readonly help: string;
  readonly type = "histogram" as const;
  readonly aggregator = "sum" as const;
  readonly #bounds: readonly number[];
  readonly #series: Series<L, HistogramSeries<L>>;

  constructor(config: MetricConfig<L> & { buckets: readonly number[] }) {
    this.name = config.name;
    this.help = config.help;
    this.#bounds = [...config.buckets].sort((a, b) => a - b);
    this.#series = new Series(config.labelNames, (labels) => ({
      labels,
      counts: this.#bounds.map(() => 0),
      sum: 0,
      count: 0,
    }));
    config.registry.registerMetric(this as unknown as Metric);
  }

  /** Counts `value` into the series of `labels`. */
  observe(labels: LabelValues<L>, value: number): void {
    const series = this.#series.entry(labels);
    const bucket = this.#bounds.findIndex((bound) => value <= bound);
    if (bucket >= 0) series.counts[bucket] = (series.counts[bucket] ?? 0) + 1;
    series.sum += value;
    series.count += 1;
  }

  /** Every series, as prom-client's registry formats a histogram. */
  async get(): Promise<CollectedMetric> {
    const values: CollectedValue[] = [];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      let cumulated = 0;
      this.#bounds.forEach((bound, i) => {
        cumulated += counts[i] ?? 0;
        values.push({
          labels: { le: bound, ...labels },
          value: cumulated,
          metricName: `${this.name}_bucket`,
        });
      });
      values.push(
        { labels: { le: "+Inf", ...labels }, value: count, metricName: `${this.name}_bucket` },
        { labels: { ...labels }, value: sum, metricName: `${this.name}_sum` },
        { labels: { ...labels }, value: count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Forgets every series, as `registry.resetMetrics()` asks. */
  reset(): void {
    this.#series.clear();
  }
}
