/**
 * The catalogue is what a manager exposes: every family of its registry's text (what `/metrics`
 * serves) is declared in `METRICS` with that type and help, and every declared one is there; the
 * series of each carry exactly the declared labels. prom-client's default metrics are the only
 * others, and those the dashboard reads (`PROCESS_METRICS`) are among them as declared.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { collectDefaultMetrics, Registry } from "prom-client";
import { METRICS, type MetricDefinition, PROCESS_METRICS } from "../../../src/metrics/index.ts";
import { everySeries } from "./support.ts";

/** A family of an exposition, as its `# HELP` and `# TYPE` lines and its samples' label names say. */
interface Family {
  type: string;
  help: string;
  labelNames: Set<string>;
}

/** The families of a Prometheus text exposition, by name. */
function families(text: string): Map<string, Family> {
  const found = new Map<string, Family>();
  for (const [, name = "", help = ""] of text.matchAll(/^# HELP (\S+) (.*)$/gm))
    found.set(name, { type: "", help, labelNames: new Set() });
  for (const [, name = "", type = ""] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const family = found.get(name);
    if (family) family.type = type;
  }
  for (const [, series = "", labels = ""] of text.matchAll(/^(\w+)\{(.*)\} \S+$/gm)) {
    const family = found.get(series) ?? found.get(series.replace(/_(bucket|sum|count)$/, ""));
    for (const [, label = ""] of labels.matchAll(/(\w+)="(?:[^"\\]|\\.)*"/g))
      if (label !== "le" || family?.type !== "histogram") family?.labelNames.add(label);
  }
  return found;
}

/** What the text of a registry shows of `metric`. */
const declared = ({ type, help, labelNames }: MetricDefinition): Family => ({
  type,
  help,
  labelNames: new Set(labelNames),
});

async function defaultMetricNames(): Promise<Set<string>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return new Set(families(await registry.metrics()).keys());
}

describe("the metric catalogue", () => {
  it("declares every metric a manager's registry exposes besides prom-client's defaults, with its type, help and labels, and no other", async () => {
    const exposed = families(await (await everySeries()).metrics());
    const defaults = await defaultMetricNames();
    const own = [...exposed].filter(([name]) => !defaults.has(name));
    assert.deepEqual(
      new Map(own),
      new Map(Object.values(METRICS).map((metric) => [metric.name, declared(metric)])),
    );
  });

  it("declares the default metrics the dashboard reads as prom-client registers them", async () => {
    const exposed = families(await (await everySeries()).metrics());
    const defaults = await defaultMetricNames();
    for (const metric of Object.values(PROCESS_METRICS)) {
      assert.ok(defaults.has(metric.name), `${metric.name} is a prom-client default`);
      assert.deepEqual(exposed.get(metric.name), declared(metric));
    }
  });

  it("gives no two metrics the same name", () => {
    const names = [...Object.values(METRICS), ...Object.values(PROCESS_METRICS)].map((m) => m.name);
    assert.equal(new Set(names).size, names.length);
  });
});
