/**
 * The PromQL the dashboard and the alert rules share: a metric selected with a selector, its rate,
 * sums by labels and histogram quantiles, written once so that both read the metrics alike.
 */

/** Labels Prometheus adds to every series it scrapes from a pod (through a ServiceMonitor): never exposed by the operator. */
export const TARGET_LABELS = ["job", "namespace", "pod", "instance"] as const;

/** `metric{selector}`. */
export function select(metric: string, selector: string): string {
  return `${metric}{${selector}}`;
}

/** `rate(metric{selector}[window])`. */
export function rate(metric: string, selector: string, window: string): string {
  return `rate(${select(metric, selector)}[${window}])`;
}

/** `increase(metric{selector}[window])`. */
export function increase(metric: string, selector: string, window: string): string {
  return `increase(${select(metric, selector)}[${window}])`;
}

/** `op by (labels) (expr)`: `sum` unless said otherwise. */
export function by(labels: readonly string[], expr: string, op = "sum"): string {
  return `${op} by (${labels.join(", ")}) (${expr})`;
}

/** The `q` quantile of histogram `family` (its `_bucket` series) over `window`, per `labels`. */
export function quantile(
  q: number,
  family: string,
  labels: readonly string[],
  selector: string,
  window: string,
): string {
  return `histogram_quantile(${q}, ${by([...labels, "le"], rate(`${family}_bucket`, selector, window))})`;
}
