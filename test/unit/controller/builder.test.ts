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
import { FakeClock } from "../../../src/clock/index.ts";
import {
  buildController,
  ControllerBuilderError,
  type ControllerDeclaration,
  type ControllerHost,
  type ControllerOptions,
  type ControllerSpec,
  controller,
  generationChanged,
  type HostedController,
  type ReconcileContext,
} from "../../../src/controller/index.ts";
import { hasCode } from "../../../src/errors/index.ts";
import type { EventRecorder } from "../../../src/events/index.ts";
import { KindRoutedClient } from "../cache/support.ts";
import { flush, recordingControllerMetrics, unfenced, until } from "./support.ts";

const Widget = resourceType<KubeObject>("example.com/v1", "Widget", "widgets", true);

/** A host with a real informer cache over a fake watch client, building what it is given. */
class FakeHost implements ControllerHost {
  readonly clock = new FakeClock();
  readonly watches = new KindRoutedClient();
  readonly cache = new InformerCache(this.watches, {
    clock: this.clock,
    informer: { watch: { initialState: "list" } },
  });
  readonly declarations: ControllerDeclaration[] = [];
  readonly options: ControllerOptions[] = [];
  readonly built: HostedController[] = [];
  readonly metrics = recordingControllerMetrics();

  addController<T extends KubeObject>(spec: ControllerSpec<T>): void {
    this.declarations.push(spec.declaration);
    this.options.push(spec.options);
    this.built.push(
      buildController(spec, {
        client: unfenced({}),
        cache: this.cache,
        logger: pino({ level: "silent" }),
        recorder: {} as EventRecorder,
        metrics: this.metrics.metrics,
        clock: this.clock,
      }),
    );
  }

  /** The one controller built so far. */
  get only(): HostedController {
    const [built, ...more] = this.built;
    assert.ok(built && more.length === 0, "exactly one controller was built");
    return built;
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
  it("declares for/owns/watches, and the host builds a source for each", async (t) => {
    const host = new FakeHost();
    const seen: [string, string[]][] = [];
    const declared = controller(host)
      .for(Widget)
      .owns(ConfigMap)
      .watches(Secret, (secret) => [`ns/${secret.metadata.labels?.widget}`])
      .reconcile(async (ctx: ReconcileContext<KubeObject>) => {
        seen.push([ctx.request.key, ctx.triggers.map((r) => r.reason)]);
        return undefined;
      });
    assert.equal(declared.name, "widget");
    assert.equal(declared.primary.type, Widget);
    assert.deepEqual(
      declared.owns.map((kind) => kind.type),
      [ConfigMap],
    );
    assert.deepEqual(
      declared.watches.map((kind) => kind.type),
      [Secret],
    );
    assert.deepEqual(host.declarations, [declared]);
    assert.equal(host.only.name, "widget");
    assert.equal(host.only.primary, Widget);
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
    void host.only.run(stop.signal);
    await until(() => seen.length === 3);
    assert.deepEqual(seen.sort(), [
      ["ns/w1", ["watch:Widget:create"]],
      ["ns/w2", ["owned:ConfigMap:create"]],
      ["ns/w3", ["mapped:Secret:create"]],
    ]);
  });

  it("gives ctx.object from the primary informer", async (t) => {
    const host = new FakeHost();
    const objects: (KubeObject | undefined)[] = [];
    controller(host)
      .for(Widget)
      .reconcile(async (ctx) => {
        objects.push(ctx.object);
        return undefined;
      });
    const { stop } = await startCache(t, host, { Widget: [obj("Widget", "w1", { generation: 4 })] });
    void host.only.run(stop.signal);
    await until(() => objects.length > 0);
    assert.equal(objects[0]?.metadata.generation, 4);
  });

  it("filters primary events with the predicates given to for()", async (t) => {
    const host = new FakeHost();
    const keys: string[] = [];
    controller(host)
      .for(Widget, { predicates: [generationChanged] })
      .reconcile(async (ctx) => {
        keys.push(ctx.request.key);
        return undefined;
      });
    const { stop, streams } = await startCache(t, host, { Widget: [obj("Widget", "w1", { generation: 1 })] });
    void host.only.run(stop.signal);
    await until(() => keys.length === 1);
    streams.Widget?.send(
      "MODIFIED",
      obj("Widget", "w1", { generation: 1, resourceVersion: "2", labels: { a: "b" } }),
    );
    await flush();
    assert.deepEqual(keys, ["ns/w1"], "a change without a new generation is filtered out");
    streams.Widget?.send("MODIFIED", obj("Widget", "w1", { generation: 2, resourceVersion: "3" }));
    await until(() => keys.length === 2);
    assert.deepEqual(keys, ["ns/w1", "ns/w1"]);
  });

  it("uses the informer of the scope it was given", () => {
    const host = new FakeHost();
    const declared = controller(host)
      .for(Widget, { scope: { namespace: "team" } })
      .owns(ConfigMap, { scope: { labelSelector: "app=widgets" } })
      .reconcile(async () => undefined);
    assert.deepEqual(declared.primary.scope, { namespace: "team" });
    const scopes = host.cache.informers().map((i) => `${i.type.kind} ${JSON.stringify(i.scope)}`);
    assert.deepEqual(scopes.sort(), [
      'ConfigMap {"labelSelector":"app=widgets"}',
      'Widget {"namespace":"team"}',
    ]);
  });

  it("takes its name from named() or controller(host, name)", () => {
    const host = new FakeHost();
    const first = controller(host, "first")
      .for(Widget)
      .reconcile(async () => undefined);
    const second = controller(host)
      .for(Widget)
      .named("second")
      .reconcile(async () => undefined);
    assert.deepEqual([first.name, second.name], ["first", "second"]);
    assert.deepEqual(
      host.built.map((c) => c.name),
      ["first", "second"],
    );
  });

  it("keeps what was given before for()", () => {
    const host = new FakeHost();
    const declared = controller(host)
      .named("early")
      .withOptions({ concurrency: 2 })
      .watches(Secret, () => [])
      .for(Widget)
      .reconcile(async () => undefined);
    assert.equal(declared.name, "early");
    assert.deepEqual(
      declared.watches.map((kind) => kind.type),
      [Secret],
    );
    assert.deepEqual(host.options, [{ concurrency: 2 }]);
  });

  it("merges withOptions calls", async (t) => {
    const host = new FakeHost();
    let reconciles = 0;
    controller(host)
      .for(Widget)
      .withOptions({ concurrency: 3, resyncPeriodMs: 1_000 })
      .withOptions({ resyncPeriodMs: 0 })
      .reconcile(async () => {
        reconciles++;
        return undefined;
      });
    assert.deepEqual(host.options, [{ concurrency: 3, resyncPeriodMs: 0 }]);
    const { stop } = await startCache(t, host, { Widget: [obj("Widget", "w1")] });
    void host.only.run(stop.signal);
    await flush();
    host.clock.advance(5_000);
    await flush();
    assert.ok(host.metrics.calls.includes("max 3"), "the first call's concurrency is kept");
    assert.equal(reconciles, 1, "the second call's resyncPeriodMs (0) wins");
  });

  it("requires for() before owns() and reconcile(), with a coded error naming the fix", () => {
    const host = new FakeHost();
    assert.throws(
      () => controller(host).owns(ConfigMap),
      (err) =>
        err instanceof ControllerBuilderError &&
        hasCode(err, "KL_CONTROLLER_BUILDER") &&
        /\.owns\(\) was called before \.for\(kind\); call \.for\(kind\) first/.test(err.message),
    );
    assert.throws(() => controller(host).reconcile(async () => undefined), {
      name: "ControllerBuilderError",
      message: /\.reconcile\(\) was called before \.for\(kind\)/,
    });
    assert.deepEqual(host.declarations, []);
  });
});
