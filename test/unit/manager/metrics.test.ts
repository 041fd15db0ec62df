import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import { ManagerMetrics } from "../../../src/manager/index.ts";

/** The samples of `name` in the registry, as `labels=value` strings. */
async function samples(metrics: ManagerMetrics, name: string): Promise<string[]> {
  const metric = metrics.registry.getSingleMetric(name);
  assert.ok(metric, `${name} is registered`);
  const { values } = await metric.get();
  return values.map((v) => `${JSON.stringify(v.labels)}=${v.value}`);
}

describe("ManagerMetrics: drift repairs", () => {
  it("counts kubeloop_drift_repairs_total and, until it is removed, the deprecated drift_repairs_total", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    const report = metrics.controller("widgets");
    report.driftRepaired("ConfigMap", "kubectl-edit");
    report.driftRepaired("ConfigMap", "kubectl-edit");
    report.driftRepaired("Deployment", "tamperer");
    const expected = [
      '{"kind":"ConfigMap","manager":"kubectl-edit"}=2',
      '{"kind":"Deployment","manager":"tamperer"}=1',
    ];
    assert.deepEqual(await samples(metrics, "kubeloop_drift_repairs_total"), expected);
    assert.deepEqual(await samples(metrics, "drift_repairs_total"), expected);
    const text = await metrics.registry.metrics();
    assert.match(text, /# HELP drift_repairs_total Deprecated: use kubeloop_drift_repairs_total/);
  });
});
