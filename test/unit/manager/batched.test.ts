/**
 * The manager's batched metrics read as prom-client's own would: the same text on a scrape and the
 * same JSON, for the same observations.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Histogram, type MetricValueWithName, Registry } from "prom-client";
import { BatchedHistogram } from "../../../src/manager/internal/batched.ts";

const config = {
  name: "request_duration_seconds",
  help: "Request latency in seconds",
  labelNames: ["verb", "host"] as const,
  buckets: [0.005, 0.1, 0.5, 1],
};

/** `observations` into prom-client's Histogram and into a BatchedHistogram, each in its own registry. */
function both(observations: [labels: { verb: string; host: string }, value: number][]) {
  const theirs = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({ ...config, labelNames: [...config.labelNames], registers: [theirs] });
  const batched = new BatchedHistogram({ ...config, registry: ours });
  for (const [labels, value] of observations) {
    histogram.observe(labels, value);
    batched.observe(labels, value);
  }
  return { theirs, ours };
}

/** The registry's metrics as JSON, each value's labels, value and name only. */
async function json(registry: Registry) {
  const metrics = await registry.getMetricsAsJSON();
  return metrics.map(({ values, ...metric }) => ({
    ...metric,
    values: values.map((v) => ({
      labels: v.labels,
      value: v.value,
      metricName: (v as MetricValueWithName<string>).metricName,
    })),
  }));
}

describe("BatchedHistogram", () => {
  const get = { verb: "GET", host: "10.0.0.1:6443" };
  const patch = { host: "10.0.0.1:6443", verb: "PATCH" };
  const observations: [{ verb: string; host: string }, number][] = [
    [get, 0.001],
    [get, 0.005], // on a bound: counted in it
    [get, 0.3],
    [patch, 2.5], // above every bound: only +Inf, sum and count
    [get, 0.1],
    [patch, 0.7],
  ];

  it("scrapes as prom-client's Histogram does: cumulated buckets, +Inf, sum and count per series", async () => {
    const { theirs, ours } = both(observations);
    const text = await ours.metrics();
    assert.equal(text, await theirs.metrics());
    assert.match(text, /request_duration_seconds_bucket\{le="0.1",verb="GET",host="10.0.0.1:6443"\} 3/);
    assert.match(text, /request_duration_seconds_count\{host="10.0.0.1:6443",verb="PATCH"\} 2/);
  });

  it("reads as the same JSON (but for the exemplars it does not keep), and is emptied by the registry's reset", async () => {
    const { theirs, ours } = both(observations);
    assert.deepEqual(await json(ours), await json(theirs));
    ours.resetMetrics();
    theirs.resetMetrics();
    assert.equal(await ours.metrics(), await theirs.metrics());
  });

  it("is the registry's metric of its name, which observes", async () => {
    const { ours } = both([]);
    const metric = ours.getSingleMetric(config.name) as unknown as BatchedHistogram<"verb" | "host">;
    metric.observe(get, 0.2);
    assert.match(await ours.metrics(), /request_duration_seconds_sum\{verb="GET",host="10.0.0.1:6443"\} 0.2/);
  });
});
