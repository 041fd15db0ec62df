import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { Action, type ControllerOptions } from "../../../src/controller/index.ts";
import { LOW_PRIORITY, NORMAL_PRIORITY, noopQueueMetrics } from "../../../src/queue/index.ts";
import { cm, deferred, flush, harness, recordingControllerMetrics } from "./support.ts";

/**
 * A controller whose first reconcile (of `ns/first`) waits for `release`, so that the keys queued
 * meanwhile are ordered by the queue alone.
 */
async function blocked(t: TestContext, options: ControllerOptions = {}) {
  const gate = deferred();
  const h = harness(t, (_call, i) => (i === 0 ? gate.promise.then(() => undefined) : undefined), options);
  void h.run();
  h.controller.enqueue("ns/first", "manual");
  await flush();
  const release = async () => {
    gate.resolve();
    for (let i = 0; i < 5; i++) await flush();
  };
  return { ...h, release };
}

describe("Controller: priorities", () => {
  it("reconciles real changes before the initial list", async (t) => {
    const h = await blocked(t);
    h.source.enqueue("ns/old-1", "watch:ConfigMap:create", LOW_PRIORITY);
    h.source.enqueue("ns/old-2", "watch:ConfigMap:create", LOW_PRIORITY);
    h.source.enqueue("ns/changed", "watch:ConfigMap:update");
    await h.release();
    assert.deepEqual(h.keys(), ["ns/first", "ns/changed", "ns/old-1", "ns/old-2"]);
  });

  it("queues the periodic resync at low priority", async (t) => {
    // The resync fires 54–66 s in; a bound above that keeps its keys from going over it.
    const h = await blocked(t, { resyncPeriodMs: 60_000, starvationBoundMs: 100_000 });
    h.store.writer.apply(cm("a"));
    h.store.writer.apply(cm("b"));
    await h.advance(66_000);
    h.controller.enqueue("ns/changed", "manual");
    await h.release();
    // By order alone this would not tell: ns/first ran 66 s at normal priority while the resync's
    // keys waited, so they have their share of the time first.
    const priorities = new Map(h.controller.recentReconciles().map((r) => [r.item.key, r.item.priority]));
    assert.deepEqual(Object.fromEntries(priorities), {
      "ns/first": NORMAL_PRIORITY,
      "ns/changed": NORMAL_PRIORITY,
      "ns/a": LOW_PRIORITY,
      "ns/b": LOW_PRIORITY,
    });
  });

  it("queues everything at normal priority, in order, with priorityQueue: false", async (t) => {
    const h = await blocked(t, { priorityQueue: false, resyncPeriodMs: 60_000 });
    h.source.enqueue("ns/old", "watch:ConfigMap:create", LOW_PRIORITY);
    h.store.writer.apply(cm("a"));
    await h.advance(66_000);
    h.source.enqueue("ns/changed", "watch:ConfigMap:update");
    await h.release();
    assert.deepEqual(h.keys(), ["ns/first", "ns/old", "ns/a", "ns/changed"]);
  });

  it("passes the starvation bound to its queue", async (t) => {
    const h = await blocked(t, { starvationBoundMs: 1_000 });
    h.source.enqueue("ns/old", "watch:ConfigMap:create", LOW_PRIORITY);
    await h.advance(1_000);
    h.source.enqueue("ns/changed", "watch:ConfigMap:update");
    await h.release();
    assert.deepEqual(h.keys(), ["ns/first", "ns/old", "ns/changed"]);
  });

  it("keeps a key's priority across retries and requeues", async (t) => {
    const depths: [number, number][] = [];
    const { metrics } = recordingControllerMetrics();
    const queue = {
      ...noopQueueMetrics,
      depth: (keys: number, priority: number) => depths.push([keys, priority]),
    };
    const h = harness(
      t,
      (_call, i) => {
        if (i === 0) throw new Error("not yet");
        return i === 1 ? Action.requeueAfter(1_000) : i === 2 ? Action.requeue() : undefined;
      },
      {},
      { metrics: { ...metrics, queue } },
    );
    void h.run();
    h.source.enqueue("ns/a", "watch:ConfigMap:create", LOW_PRIORITY);
    await flush();
    await h.advance(5);
    await h.advance(1_000);
    await h.advance(5);
    assert.equal(h.reconciles.length, 4);
    assert.deepEqual(
      h.reconciles.map((r) => r.ctx.triggers[0]?.reason),
      ["watch:ConfigMap:create", "retry", "requeue-after", "requeue"],
    );
    const queuedThenTaken = [
      [1, LOW_PRIORITY],
      [0, LOW_PRIORITY],
    ];
    assert.deepEqual(depths, [
      ...queuedThenTaken,
      ...queuedThenTaken,
      ...queuedThenTaken,
      ...queuedThenTaken,
    ]);
    depths.length = 0;
    h.source.enqueue("ns/b", "watch:ConfigMap:update");
    await flush();
    assert.deepEqual(depths, [
      [1, NORMAL_PRIORITY],
      [0, NORMAL_PRIORITY],
    ]);
  });
});
