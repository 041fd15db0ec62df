/**
 * The PromQL the dashboard and the alert rules share: a metric of the catalogue (`src/metrics`)
 * selected with a selector, its rate, sums by labels and histogram quantiles, written once so that
 * both read the metrics alike, and name only metrics and labels the catalogue declares.
 */
import type { LabelOf, MetricDefinition } from "../metrics/index.ts";

/** Labels Prometheus adds to every series it scrapes from a pod (through a ServiceMonitor): never exposed by the operator. */
export const TARGET_LABELS = ["job", "namespace", "pod", "instance"] as const;

/** A label a query may name on metric `M`: one of its own, or one the scrape adds. */
export type QueryLabel<M extends MetricDefinition> = LabelOf<M> | (typeof TARGET_LABELS)[number];

/** Matchers on some of metric `M`'s labels: `label="value"`, or `label=~"regex"` for a RegExp. */
export type Matchers<M extends MetricDefinition> = { readonly [L in LabelOf<M>]?: string | RegExp };

/** `metric{selector, matchers}`. */
export function select<M extends MetricDefinition>(
  metric: M,
  selector: string,
  matchers: Matchers<M> = {},
): string {
  const matched = Object.entries<string | RegExp | undefined>(matchers).map(([label, value]) =>
    value instanceof RegExp ? `${label}=~"${value.source}"` : `${label}="${value}"`,
  );
  return `${metric.name}{${[selector, ...matched].filter(Boolean).join(", ")}}`;
}

/** `fn(metric{selector, matchers}[window])`: a function of the metric's samples over a window. */
function overWindow(fn: "rate" | "increase") {
  return <M extends MetricDefinition>(
    metric: M,
    selector: string,
    window: string,
    matchers: Matchers<M> = {},
  ) => `${fn}(${select(metric, selector, matchers)}[${window}])`;
}

/** `rate(metric{selector, matchers}[window])`. */
export const rate = overWindow("rate");

/** `increase(metric{selector, matchers}[window])`. */
export const increase = overWindow("increase");

/** `op by (labels) (expr)`: `sum` unless said otherwise. */
export function by(labels: readonly string[], expr: string, op = "sum"): string {
  return `${op} by (${labels.join(", ")}) (${expr})`;
}

/** The `q` quantile of histogram `family` (its `_bucket` series) over `window`, per `labels`. */
export function quantile<M extends MetricDefinition<"histogram">>(
  q: number,
  family: M,
  labels: readonly QueryLabel<M>[],
  selector: string,
  window: string,
): string {
  const buckets = { ...family, name: `${family.name}_bucket` };
  return `histogram_quantile(${q}, ${by([...labels, "le"], rate(buckets, selector, window))})`;
}
