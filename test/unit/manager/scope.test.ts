/**
 * A namespace-scoped manager keeps every informer in its namespace, per-kind overrides too; its
 * cache options refuse undeclared reads, budget the heap per kind and wait longer for a sync when asked.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { type KubeObject, resourceType } from "../../../src/api/index.ts";
import { InvalidCacheBudgetError, MissingInformerError } from "../../../src/cache/index.ts";
import { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { controller } from "../../../src/controller/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { fakeConnection } from "../client/support.ts";
import { fakeManager } from "./support.ts";

const Widget = resourceType<KubeObject>("example.com/v1", "Widget", "widgets", true);
const Gadget = resourceType<KubeObject>("example.com/v1", "Gadget", "gadgets", true);

describe("Manager: namespace and per-kind cache overrides", () => {
  it("keeps a per-kind override within the manager's namespace unless it names one", async () => {
    const clock = new FakeClock();
    const manager = await Manager.create({
      name: "widgets",
      namespace: "team-a",
      cache: {
        byKind: {
          "example.com/v1/Widget": { labelSelector: "tier=gold" },
          "example.com/v1/Gadget": { namespace: "shared" },
        },
      },
      client: new Client(fakeConnection(), { clock }),
      logger: pino({ level: "silent" }),
      metrics: false,
      health: false,
      clock,
    });
    controller(manager)
      .for(Widget)
      .watches(Gadget, () => [])
      .reconcile(async () => undefined);
    const scopes = manager.cache
      .informers()
      .map((i) => [i.type.kind, i.scope.namespace, i.scope.labelSelector]);
    assert.deepEqual(scopes, [
      ["Widget", "team-a", "tier=gold"],
      ["Gadget", "shared", undefined],
    ]);
  });
});

describe("Manager: cache budgets and undeclared reads", () => {
  it("shows 0 for each budgeted kind from the start, and refuses a budget that is not bytes", async () => {
    const { manager } = await fakeManager({ cache: { budgets: { "example.com/v1/Widget": 2 ** 20 } } });
    const gauge = manager.metrics.registry.getSingleMetric("kubeloop_cache_budget_exceeded");
    assert.deepEqual(
      (await gauge?.get())?.values.map((v) => [v.labels.kind, v.value]),
      [["Widget", 0]],
    );
    await assert.rejects(fakeManager({ cache: { budgets: { "v1/Pod": -1 } } }), InvalidCacheBudgetError);
  });

  it("refuses a cached read of an undeclared kind with cache.failOnMissingInformer, and reads a declared one", async () => {
    const { manager } = await fakeManager({ cache: { failOnMissingInformer: true } });
    controller(manager)
      .for(Widget)
      .reconcile(async () => undefined);
    await assert.rejects(manager.cache.reader(Gadget), MissingInformerError);
    assert.equal(manager.cache.informers().length, 1, "only the declared kind is cached");
  });

  it("waits cache.syncTimeoutMs for the caches to sync, 2 minutes by default", async () => {
    const { manager: waiting } = await fakeManager({ cache: { syncTimeoutMs: 30 * 60_000 } });
    assert.equal(waiting.cache.syncTimeoutMs, 30 * 60_000);
    const { manager } = await fakeManager();
    assert.equal(manager.cache.syncTimeoutMs, 2 * 60_000);
  });
});
