import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, Secret } from "../../../src/api/index.ts";
import type { InformerState } from "../../../src/cache/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { ManagerMetrics } from "../../../src/manager/index.ts";
import { LOW_PRIORITY, WorkQueue } from "../../../src/queue/index.ts";

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

describe("ManagerMetrics: informer hooks", () => {
  it("counts callback errors, restarts, relist divergences and objects from outside a shard per kind", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    const hooks = metrics.informer(ConfigMap);
    hooks.callbackError?.("handler");
    hooks.callbackError?.("handler");
    hooks.callbackError?.("transform");
    hooks.restart?.(new Error("loop died"), 800);
    hooks.diverged?.("added");
    hooks.diverged?.("updated");
    hooks.diverged?.("updated");
    hooks.relist?.("expired");
    hooks.outsideShard?.();
    hooks.outsideShard?.();
    assert.deepEqual(await samples(metrics, "kubeloop_informer_callback_errors_total"), [
      '{"kind":"ConfigMap","callback":"handler"}=2',
      '{"kind":"ConfigMap","callback":"transform"}=1',
    ]);
    assert.deepEqual(await samples(metrics, "kubeloop_informer_restarts_total"), ['{"kind":"ConfigMap"}=1']);
    assert.deepEqual(await samples(metrics, "kubeloop_cache_divergence_total"), [
      '{"kind":"ConfigMap","change":"added"}=1',
      '{"kind":"ConfigMap","change":"updated"}=2',
    ]);
    assert.deepEqual(await samples(metrics, "kubeloop_watch_relists_total"), [
      '{"kind":"ConfigMap","reason":"expired"}=1',
    ]);
    assert.deepEqual(await samples(metrics, "kubeloop_watch_outside_shard_total"), [
      '{"kind":"ConfigMap"}=2',
    ]);
  });
});

describe("ManagerMetrics: client hooks", () => {
  it("counts attempts, latencies and retries under client-go's names and labels", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    const hooks = metrics.client("10.0.0.1:6443");
    hooks.request({ method: "GET", verb: "list", code: "503", seconds: 0.01 });
    hooks.retry?.({ method: "GET", code: "503" });
    hooks.request({ method: "GET", verb: "list", code: "200", seconds: 0.02 });
    assert.deepEqual(await samples(metrics, "rest_client_requests_total"), [
      '{"code":"503","method":"GET","host":"10.0.0.1:6443"}=1',
      '{"code":"200","method":"GET","host":"10.0.0.1:6443"}=1',
    ]);
    assert.deepEqual(await samples(metrics, "rest_client_request_retries_total"), [
      '{"code":"503","verb":"GET","host":"10.0.0.1:6443"}=1',
    ]);
  });
});

describe("ManagerMetrics: work queue hooks", () => {
  it("labels workqueue_depth with each priority as controller-runtime does", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    const queue = new WorkQueue({ metrics: metrics.controller("widgets").queue });
    queue.add("ns/a", "resync", { priority: LOW_PRIORITY });
    queue.add("ns/b", "resync", { priority: LOW_PRIORITY });
    queue.add("ns/c", "watch:Widget:update");
    queue.add("ns/b", "watch:Widget:update");
    assert.deepEqual(await samples(metrics, "workqueue_depth"), [
      '{"name":"widgets","controller":"widgets","priority":"-100"}=1',
      '{"name":"widgets","controller":"widgets","priority":"0"}=2',
    ]);
    await queue.get();
    const text = await metrics.registry.metrics();
    assert.match(text, /^workqueue_depth\{name="widgets",controller="widgets",priority="0"\} 1$/m);
    assert.match(text, /^workqueue_depth\{name="widgets",controller="widgets",priority="-100"\} 1$/m);
  });
});

describe("ManagerMetrics: what a replica caches and shares", () => {
  it("counts cached objects per kind over every informer, as they are when scraped", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    let informers = [
      { type: ConfigMap, store: { size: 3 } },
      { type: ConfigMap, store: { size: 2 } },
      { type: Secret, store: { size: 1 } },
    ];
    metrics.trackCachedObjects(() => informers);
    assert.deepEqual(await samples(metrics, "kubeloop_cache_objects"), [
      '{"kind":"ConfigMap"}=5',
      '{"kind":"Secret"}=1',
    ]);
    informers = [{ type: ConfigMap, store: { size: 2 } }];
    assert.deepEqual(
      await samples(metrics, "kubeloop_cache_objects"),
      ['{"kind":"ConfigMap"}=2'],
      "a shard given up is gone",
    );
  });

  it("sums the estimated cache bytes per kind over every informer, as they are when scraped", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    let informers = [
      { type: ConfigMap, bytes: 3000 },
      { type: ConfigMap, bytes: 2000 },
      { type: Secret, bytes: 100 },
    ];
    metrics.trackCachedBytes(() => informers);
    assert.deepEqual(await samples(metrics, "kubeloop_cache_bytes"), [
      '{"kind":"ConfigMap"}=5000',
      '{"kind":"Secret"}=100',
    ]);
    informers = [{ type: ConfigMap, bytes: 2500 }];
    assert.deepEqual(await samples(metrics, "kubeloop_cache_bytes"), ['{"kind":"ConfigMap"}=2500']);
  });

  it("shows 1 for a kind over its cache budget and 0 once back under", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    metrics.cacheBudgetExceeded("Pod", false);
    metrics.cacheBudgetExceeded("ConfigMap", true);
    assert.deepEqual(await samples(metrics, "kubeloop_cache_budget_exceeded"), [
      '{"kind":"Pod"}=0',
      '{"kind":"ConfigMap"}=1',
    ]);
    metrics.cacheBudgetExceeded("ConfigMap", false);
    assert.deepEqual(await samples(metrics, "kubeloop_cache_budget_exceeded"), [
      '{"kind":"Pod"}=0',
      '{"kind":"ConfigMap"}=0',
    ]);
  });

  it("reports a kind synced only while every informer of it has synced and is watching", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    const informer = (type: typeof ConfigMap | typeof Secret, state: InformerState) => ({
      type,
      health: () => ({ state }),
    });
    let informers = [
      informer(ConfigMap, "synced"),
      informer(ConfigMap, "failing"),
      informer(Secret, "synced"),
    ];
    metrics.trackInformerSync(() => informers);
    assert.deepEqual(await samples(metrics, "kubeloop_informer_synced"), [
      '{"kind":"ConfigMap"}=0',
      '{"kind":"Secret"}=1',
    ]);
    informers = [informer(ConfigMap, "synced"), informer(Secret, "syncing")];
    assert.deepEqual(await samples(metrics, "kubeloop_informer_synced"), [
      '{"kind":"ConfigMap"}=1',
      '{"kind":"Secret"}=0',
    ]);
  });

  it("adds up the gauges of a controller's instances (one per shard held), each to zero when it stops", async () => {
    const metrics = new ManagerMetrics(new FakeClock(), { processMetrics: false });
    const [shard0, shard1] = [metrics.controller("widgets"), metrics.controller("widgets")];
    shard0.activeWorkers(2);
    shard1.activeWorkers(3);
    shard0.queue.depth(4, 0);
    shard1.queue.depth(1, 0);
    assert.deepEqual(await samples(metrics, "controller_runtime_active_workers"), [
      '{"controller":"widgets"}=5',
    ]);
    shard1.activeWorkers(0);
    shard1.queue.depth(0, 0);
    assert.deepEqual(await samples(metrics, "controller_runtime_active_workers"), [
      '{"controller":"widgets"}=2',
    ]);
    assert.deepEqual(await samples(metrics, "workqueue_depth"), [
      '{"name":"widgets","controller":"widgets","priority":"0"}=4',
    ]);
  });
});
