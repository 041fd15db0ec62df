/**
 * Reading a Prometheus text endpoint in tests: the sum of a metric's samples whose labels include
 * the given ones, e.g. `kubeloop_drift_repairs_total{kind="ConfigMap"}` on a manager's `/metrics`;
 * what an endpoint exposes; and whether a PromQL query reads only what it exposes.
 */
import { metricReferences } from "./internal/promql.ts";

/** One sample of an exposition: its series name, labels and value. */
interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition, in order. */
function* samples(text: string): Generator<Sample> {
  for (const [, name = "", body, value] of text.matchAll(/^(\w+)(?:\{(.*)\})? (\S+)$/gm)) {
    const labels = Object.fromEntries(
      [...(body ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v]),
    );
    yield { name, labels, value: Number(value) };
  }
}

/**
 * Sums the samples of `name` at `url` (a `/metrics` endpoint) whose labels include `labels`; 0
 * when none. `init` is passed to `fetch`: e.g. a bearer token for secure metrics.
 */
export async function scrapeMetric(
  url: string,
  name: string,
  labels: Readonly<Record<string, string | undefined>> = {},
  init?: RequestInit,
): Promise<number> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  const text = await response.text();
  let sum = 0;
  for (const sample of samples(text)) {
    if (sample.name !== name) continue;
    if (Object.entries(labels).every(([key, v]) => sample.labels[key] === v)) sum += sample.value;
  }
  return sum;
}

/** A series name an endpoint exposes: how many series it has, and the label names they carry. */
export interface ExposedSeries {
  readonly series: number;
  readonly labels: ReadonlySet<string>;
}

/** The suffixed series a metric family of `type` exposes: a histogram's `_bucket`, `_sum`, `_count`. */
function seriesNames(family: string, type: string): string[] {
  if (type === "histogram") return ["_bucket", "_sum", "_count"].map((suffix) => family + suffix);
  if (type === "summary") return [family, `${family}_sum`, `${family}_count`];
  return [family];
}

/**
 * What a Prometheus text exposition (a `/metrics` body) exposes, by series name: every family its
 * `# TYPE` lines declare (a histogram as its `_bucket`, `_sum` and `_count` series), with the
 * number of series and their label names (none yet for a labelled counter never incremented).
 *
 * @example
 * ```ts
 * const exposed = exposition(await (await fetch("http://127.0.0.1:8080/metrics")).text());
 * exposed.get("workqueue_depth")?.labels; // Set { "name", "controller", "priority" }
 * ```
 */
export function exposition(text: string): Map<string, ExposedSeries> {
  const exposed = new Map<string, { series: number; labels: Set<string> }>();
  for (const [, family = "", type = ""] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm))
    for (const name of seriesNames(family, type)) exposed.set(name, { series: 0, labels: new Set() });
  for (const sample of samples(text)) {
    const entry = exposed.get(sample.name) ?? { series: 0, labels: new Set<string>() };
    exposed.set(sample.name, entry);
    entry.series++;
    for (const label of Object.keys(sample.labels)) entry.labels.add(label);
  }
  return exposed;
}

/**
 * What in `query` (PromQL) an endpoint whose {@link exposition} is `exposed` does not expose: each
 * metric it selects that is not there, and each label it names on a metric (matchers, `by`, `on`)
 * that none of the metric's series carries. Labels the scrape adds (`targetLabels`: e.g. `job`,
 * `namespace`, `pod`) are not looked for; neither are the labels of a metric with no series yet.
 * Empty when the query reads only what is exposed.
 *
 * @example
 * ```ts
 * queryProblems('sum by (controller) (rate(workqueue_adds_total{job="widgets"}[5m]))', exposed, ["job"]);
 * ```
 */
export function queryProblems(
  query: string,
  exposed: ReadonlyMap<string, ExposedSeries>,
  targetLabels: readonly string[] = [],
): string[] {
  return metricReferences(query).flatMap(({ metric, labels }) => {
    const found = exposed.get(metric);
    if (!found) return [`${metric || "a selector without a metric name"} is not exposed`];
    if (found.series === 0) return [];
    return labels
      .filter((label) => !targetLabels.includes(label) && !found.labels.has(label))
      .map((label) => `${metric} has no label ${label} (its labels: ${[...found.labels].join(", ")})`);
  });
}
