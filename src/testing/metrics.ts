/**
 * Reading a Prometheus text endpoint in tests: the sum of a metric's samples whose labels include
 * the given ones, e.g. `kubeloop_drift_repairs_total{kind="ConfigMap"}` on a manager's `/metrics`.
 */

/** Sums the samples of `name` at `url` (a `/metrics` endpoint) whose labels include `labels`; 0 when none. */
export async function scrapeMetric(
  url: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(url)).text();
  let sum = 0;
  for (const [, metric, body, value] of text.matchAll(/^(\w+)(?:\{(.*)\})? (\S+)$/gm)) {
    if (metric !== name) continue;
    const series = Object.fromEntries(
      [...(body ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v]),
    );
    if (Object.entries(labels).every(([key, v]) => series[key] === v)) sum += Number(value);
  }
  return sum;
}
