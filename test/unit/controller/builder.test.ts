import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { pino } from "pino";
import {
  ConfigMap,
  type KubeObject,
  type OwnerReference,
  resourceType,
  Secret,
} from "../../../src/api/index.ts";
import { InformerCache } from "../../../src/cache/index.ts";
import { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  type Controller,
  type ControllerDeps,
  type ControllerHost,
  controller,
  generationChanged,
  type ReconcileContext,
} from "../../../src/controller/index.ts";
import type { EventRecorder } from "../../../src/events/index.ts";
import { Manager } from "../../../src/manager/index.ts";
import { KindRoutedClient } from "../cache/support.ts";
import { fakeConnection } from "../client/support.ts";
import { flush, recordingControllerMetrics } from "./support.ts";

const Widget = resourceType<KubeObject>("example.com/v1", "Widget", "widgets", true);

/** A host with a real informer cache over a fake watch client. */
class FakeHost implements ControllerHost {
  readonly clock = new FakeClock();
  readonly watches = new KindRoutedClient();
  readonly cache = new InformerCache(this.watches, {
    clock: this.clock,
    informer: { watch: { initialState: "list" } },
  });
  readonly registered: Controller<KubeObject>[] = [];
  readonly depsFor: string[] = [];
  readonly metrics = recordingControllerMetrics();

  controllerDeps(name: string): ControllerDeps {
    this.depsFor.push(name);
    return {
      client: {} as Client,
      cache: this.cache,
      logger: pino({ level: "silent" }),
      recorder: {} as EventRecorder,
      metrics: this.metrics.metrics,
      clock: this.clock,
    };
  }

  register(built: Controller<KubeObject>): void {
    this.registered.push(built);
  }
}

function obj(kind: string, name: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject {
  const apiVersion = kind === "Widget" ? "example.com/v1" : "v1";
  return { apiVersion, kind, metadata: { name, namespace: "ns", resourceVersion: "1", ...extra } };
}

const ownedBy = (name: string): OwnerReference[] => [
  { apiVersion: "example.com/v1", kind: "Widget", name, uid: `uid-${name}`, controller: true },
];

/** Serves one list page per kind, then a watch stream per kind, and starts the cache. */
async function startCache(t: TestContext, host: FakeHost, lists: Record<string, KubeObject[]>) {
  const stop = new AbortController();
  t.after(() => stop.abort());
  const streams = Object.fromEntries(
    Object.entries(lists).map(([kind, items]) => {
      host.watches.kind(kind).page(items, "1");
      return [kind, host.watches.kind(kind).stream()];
    }),
  );
  host.cache.start(stop.signal);
  await host.cache.waitForSync();
  return { stop, streams };
}

describe("controller builder", () => {
  it("registers for/owns/watches sources and declares the kinds", async (t) => {
    const host = new FakeHost();
    const seen: [string, string[]][] = [];
    const built = controller(host)
      .for(Widget)
      .owns(ConfigMap)
      .watches(Secret, (secret) => [`ns/${secret.metadata.labels?.widget}`])
      .reconcile(async (ctx: ReconcileContext<KubeObject>) => {
        seen.push([ctx.request.key, ctx.triggers.map((r) => r.reason)]);
        return undefined;
      });
    assert.equal(built.name, "widget");
    assert.deepEqual(built.declaration, { primary: Widget, owns: [ConfigMap], watches: [Secret] });
    assert.deepEqual(host.registered, [built]);
    assert.deepEqual(host.depsFor, ["widget"]);
    assert.equal(built.primary, Widget);
    assert.deepEqual(
      host.cache
        .informers()
        .map((i) => i.type.kind)
        .sort(),
      ["ConfigMap", "Secret", "Widget"],
    );

    const { stop } = await startCache(t, host, {
      Widget: [obj("Widget", "w1")],
      ConfigMap: [obj("ConfigMap", "child", { ownerReferences: ownedBy("w2") }), obj("ConfigMap", "orphan")],
      Secret: [obj("Secret", "s", { labels: { widget: "w3" } })],
    });
    void built.run(stop.signal);
    await flush();
    assert.deepEqual(seen.sort(), [
      ["ns/w1", ["watch:Widget:create"]],
      ["ns/w2", ["owned:ConfigMap:create"]],
      ["ns/w3", ["mapped:Secret:create"]],
    ]);
  });

  it("gives ctx.object from the primary informer", async (t) => {
    const host = new FakeHost();
    const objects: (KubeObject | undefined)[] = [];
    const built = controller(host)
      .for(Widget)
      .reconcile(async (ctx) => {
        objects.push(ctx.object);
        return undefined;
      });
    const { stop } = await startCache(t, host, { Widget: [obj("Widget", "w1", { generation: 4 })] });
    void built.run(stop.signal);
    await flush();
    assert.equal(objects[0]?.metadata.generation, 4);
  });

  it("filters primary events with the predicates given to for()", async (t) => {
    const host = new FakeHost();
    const keys: string[] = [];
    const built = controller(host)
      .for(Widget, { predicates: [generationChanged] })
      .reconcile(async (ctx) => {
        keys.push(ctx.request.key);
        return undefined;
      });
    const { stop, streams } = await startCache(t, host, { Widget: [obj("Widget", "w1", { generation: 1 })] });
    void built.run(stop.signal);
    await flush();
    streams.Widget?.send(
      "MODIFIED",
      obj("Widget", "w1", { generation: 1, resourceVersion: "2", labels: { a: "b" } }),
    );
    await flush();
    assert.deepEqual(keys, ["ns/w1"], "a change without a new generation is filtered out");
    streams.Widget?.send("MODIFIED", obj("Widget", "w1", { generation: 2, resourceVersion: "3" }));
    await flush();
    assert.deepEqual(keys, ["ns/w1", "ns/w1"]);
  });

  it("uses the informer of the scope it was given", () => {
    const host = new FakeHost();
    controller(host)
      .for(Widget, { scope: { namespace: "team" } })
      .owns(ConfigMap, { scope: { labelSelector: "app=widgets" } })
      .reconcile(async () => undefined);
    const scopes = host.cache.informers().map((i) => `${i.type.kind} ${JSON.stringify(i.scope)}`);
    assert.deepEqual(scopes.sort(), [
      'ConfigMap {"labelSelector":"app=widgets"}',
      'Widget {"namespace":"team"}',
    ]);
  });

  it("takes its name from named() or controller(host, name)", () => {
    const host = new FakeHost();
    assert.equal(
      controller(host, "first")
        .for(Widget)
        .reconcile(async () => undefined).name,
      "first",
    );
    assert.equal(
      controller(host)
        .for(Widget)
        .named("second")
        .reconcile(async () => undefined).name,
      "second",
    );
    assert.deepEqual(host.depsFor, ["first", "second"]);
  });

  it("merges withOptions calls", async (t) => {
    const host = new FakeHost();
    let reconciles = 0;
    const built = controller(host)
      .for(Widget)
      .withOptions({ concurrency: 3, resyncPeriodMs: 1_000 })
      .withOptions({ resyncPeriodMs: 0 })
      .reconcile(async () => {
        reconciles++;
        return undefined;
      });
    const { stop } = await startCache(t, host, { Widget: [obj("Widget", "w1")] });
    void built.run(stop.signal);
    await flush();
    host.clock.advance(5_000);
    await flush();
    assert.ok(host.metrics.calls.includes("max 3"), "the first call's concurrency is kept");
    assert.equal(reconciles, 1, "the second call's resyncPeriodMs (0) wins");
  });

  it("requires for() before owns() and reconcile()", () => {
    const host = new FakeHost();
    assert.throws(() => controller(host).owns(ConfigMap), {
      name: "TypeError",
      message: /call \.for\(kind\) before \.owns\(\)/,
    });
    assert.throws(() => controller(host).reconcile(async () => undefined), /before \.reconcile\(\)/);
    assert.deepEqual(host.registered, []);
  });
});

describe("controller builder with a Manager as host", () => {
  it("rejects a second controller of the same name", async () => {
    const manager = await Manager.create({
      name: "widgets",
      client: new Client(fakeConnection(), { clock: new FakeClock() }),
      logger: pino({ level: "silent" }),
      metrics: false,
      health: false,
      clock: new FakeClock(),
    });
    controller(manager)
      .for(Widget)
      .reconcile(async () => undefined);
    assert.throws(
      () =>
        controller(manager)
          .for(Widget)
          .reconcile(async () => undefined),
      { name: "TypeError", message: /a controller named "widget" is already registered.*\.named\(\)/ },
    );
    controller(manager)
      .for(Widget)
      .named("widget-2")
      .reconcile(async () => undefined);
    assert.deepEqual(
      manager.controllers.map((c) => c.name),
      ["widget", "widget-2"],
    );
  });
});
