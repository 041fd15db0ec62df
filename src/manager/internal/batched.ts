/**
 * Counters and gauges for the hot paths (every enqueue counts a trigger and an add and sets the
 * queue's depth): prom-client hashes and validates the labels on every `inc` and `set`, which
 * cost a fifth of the CPU of 2,000 routes converging in bench/myproxy-routes.ts. These keep the
 * changes in a Map keyed by the label values and hand them to prom-client when it collects —
 * on every scrape and `registry.metrics()` — so what a scrape reads is the same.
 */
import { Counter, Gauge, type LabelValues, type Registry } from "prom-client";

/** What a metric is: its name, help, label names and registry. */
export interface MetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registry: Registry;
}

/** Pending values by label values, in the label names' order. */
class Pending<L extends string> {
  readonly #labelNames: readonly L[];
  readonly #entries = new Map<string, { labels: LabelValues<L>; value: number }>();

  constructor(labelNames: readonly L[]) {
    this.#labelNames = labelNames;
  }

  /** The entry of `labels`, created with value 0. */
  entry(labels: LabelValues<L>): { labels: LabelValues<L>; value: number } {
    const key = this.#labelNames.map((name) => labels[name] ?? "").join("\u0000");
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { labels, value: 0 };
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** Hands every entry to `apply` and forgets them. */
  drain(apply: (labels: LabelValues<L>, value: number) => void): void {
    for (const { labels, value } of this.#entries.values()) apply(labels, value);
    this.#entries.clear();
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
