import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ConfigMap,
  type ConfigMapObject,
  Deployment,
  type KubeObject,
  type OwnerReference,
  resourceType,
} from "../../../src/api/index.ts";
import type { Informer, InformerHandler } from "../../../src/cache/index.ts";
import { generationChanged, informerSource, mapToOwner, self } from "../../../src/controller/index.ts";
import { LOW_PRIORITY, NORMAL_PRIORITY } from "../../../src/queue/index.ts";

function child(namespace: string | undefined, ...ownerReferences: OwnerReference[]): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "child", namespace, ownerReferences } };
}

const ref = (apiVersion: string, kind: string, name: string, controller?: boolean): OwnerReference => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller,
});

const Widget = resourceType("example.com/v1", "Widget", "widgets", true);
const ClusterWidget = resourceType("example.com/v1", "ClusterWidget", "clusterwidgets", false);

describe("mapToOwner", () => {
  it("maps an object to its controller's key when the controller is of the owner's kind", () => {
    assert.deepEqual(mapToOwner(Widget)(child("ns", ref("example.com/v1", "Widget", "w", true))), ["ns/w"]);
  });

  it("ignores owner references that are not the controller", () => {
    const obj = child(
      "ns",
      ref("example.com/v1", "Widget", "owner"),
      ref("apps/v1", "Deployment", "d", true),
    );
    assert.deepEqual(mapToOwner(Widget)(obj), []);
    assert.deepEqual(mapToOwner(Deployment)(obj), ["ns/d"]);
  });

  it("requires the same kind and group, but accepts any version of the group", () => {
    const map = mapToOwner(Widget);
    assert.deepEqual(map(child("ns", ref("other.com/v1", "Widget", "w", true))), []);
    assert.deepEqual(map(child("ns", ref("example.com/v1", "Gadget", "w", true))), []);
    assert.deepEqual(map(child("ns", ref("example.com/v2beta1", "Widget", "w", true))), ["ns/w"]);
  });

  it("tells the core group from named groups", () => {
    const CoreLike = resourceType("v1", "Widget", "widgets", true);
    assert.deepEqual(mapToOwner(CoreLike)(child("ns", ref("example.com/v1", "Widget", "w", true))), []);
    assert.deepEqual(mapToOwner(CoreLike)(child("ns", ref("v1", "Widget", "w", true))), ["ns/w"]);
    assert.deepEqual(mapToOwner(Widget)(child("ns", ref("v1", "Widget", "w", true))), []);
  });

  it("maps to a bare name for a cluster-scoped owner", () => {
    assert.deepEqual(
      mapToOwner(ClusterWidget)(child("ns", ref("example.com/v1", "ClusterWidget", "cw", true))),
      ["cw"],
    );
  });

  it("maps objects without owner references to nothing", () => {
    assert.deepEqual(mapToOwner(Widget)(child("ns")), []);
  });
});

describe("self", () => {
  it("maps an object to its own key", () => {
    assert.deepEqual(self(child("ns")), ["ns/child"]);
    assert.deepEqual(self(child(undefined)), ["child"]);
  });
});

/** An informer stand-in (of ConfigMaps unless told otherwise) that exposes the handler a source registers. */
function fakeInformer<T extends KubeObject = ConfigMapObject>() {
  const state: { handler?: InformerHandler<T>; removed: boolean } = { removed: false };
  const informer = {
    type: ConfigMap,
    addHandler(handler: InformerHandler<T>) {
      state.handler = handler;
      return () => {
        state.removed = true;
      };
    },
  } as unknown as Informer<T>;
  return { informer, state };
}

function cm(name: string, owner?: string, generation = 1): ConfigMapObject {
  const ownerReferences = owner ? [ref("example.com/v1", "Widget", owner, true)] : undefined;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "ns", generation, ownerReferences },
  };
}

describe("informerSource", () => {
  it("queues the mapped keys of adds, updates and deletes with a labelled reason", () => {
    const { informer, state } = fakeInformer();
    const queued: [string, string][] = [];
    informerSource(informer, self, [], "watch").start((key, reason) => queued.push([key, reason]));
    state.handler?.onAdd?.(cm("a"), true);
    state.handler?.onUpdate?.(cm("a"), cm("a"));
    state.handler?.onDelete?.(cm("b"));
    assert.deepEqual(queued, [
      ["ns/a", "watch:ConfigMap:create"],
      ["ns/a", "watch:ConfigMap:update"],
      ["ns/b", "watch:ConfigMap:delete"],
    ]);
  });

  it("maps both the old and the new object of an update, once per key", () => {
    const { informer, state } = fakeInformer();
    const queued: [string, string][] = [];
    informerSource(informer, mapToOwner(Widget), [], "owned").start((key, reason) =>
      queued.push([key, reason]),
    );
    state.handler?.onUpdate?.(cm("c", "old-owner"), cm("c", "new-owner"));
    state.handler?.onUpdate?.(cm("c", "same"), cm("c", "same"));
    state.handler?.onUpdate?.(cm("c"), cm("c"));
    assert.deepEqual(queued, [
      ["ns/old-owner", "owned:ConfigMap:update"],
      ["ns/new-owner", "owned:ConfigMap:update"],
      ["ns/same", "owned:ConfigMap:update"],
    ]);
  });

  it("filters events through its predicates", () => {
    const { informer, state } = fakeInformer();
    const queued: string[] = [];
    informerSource<ConfigMapObject>(informer, self, [generationChanged], "watch").start((_key, reason) =>
      queued.push(reason),
    );
    state.handler?.onUpdate?.(cm("a", undefined, 1), cm("a", undefined, 1));
    state.handler?.onUpdate?.(cm("a", undefined, 1), cm("a", undefined, 2));
    state.handler?.onAdd?.(cm("a"), false);
    assert.deepEqual(queued, ["watch:ConfigMap:update", "watch:ConfigMap:create"]);
  });

  it("queues the initial list and updates that change nothing at low priority, the rest at normal", () => {
    const { informer, state } = fakeInformer();
    const queued: [string, number | undefined][] = [];
    informerSource(informer, self, [], "watch").start((_key, reason, priority) =>
      queued.push([reason, priority]),
    );
    // As a real ConfigMap: no generation, so nothing says whether a controller has seen it.
    const at = (resourceVersion?: string) => ({
      ...cm("a"),
      metadata: { ...cm("a").metadata, generation: undefined, resourceVersion },
    });
    state.handler?.onAdd?.(at("1"), true);
    state.handler?.onAdd?.(at("2"), false);
    state.handler?.onUpdate?.(at("2"), at("2"));
    state.handler?.onUpdate?.(at("2"), at("3"));
    state.handler?.onUpdate?.(at(), at());
    state.handler?.onDelete?.(at("3"));
    assert.deepEqual(queued, [
      ["watch:ConfigMap:create", LOW_PRIORITY],
      ["watch:ConfigMap:create", NORMAL_PRIORITY],
      ["watch:ConfigMap:update", LOW_PRIORITY],
      ["watch:ConfigMap:update", NORMAL_PRIORITY],
      ["watch:ConfigMap:update", NORMAL_PRIORITY],
      ["watch:ConfigMap:delete", NORMAL_PRIORITY],
    ]);
  });

  it("keeps normal priority for an object of the initial list that still awaits its controller", () => {
    const { informer, state } = fakeInformer<KubeObject>();
    const queued: [string, number | undefined][] = [];
    informerSource(informer, self, [], "watch").start((key, _reason, priority) =>
      queued.push([key, priority]),
    );
    const widget = (name: string, generation?: number, status?: object): KubeObject =>
      ({
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name, namespace: "ns", generation },
        ...(status ? { status } : {}),
      }) as KubeObject;
    state.handler?.onAdd?.(widget("new", 1), true);
    state.handler?.onAdd?.(widget("changed", 3, { observedGeneration: 2 }), true);
    state.handler?.onAdd?.(widget("seen", 3, { observedGeneration: 3 }), true);
    state.handler?.onAdd?.(widget("unsaid", 3, { phase: "Ready" }), true);
    state.handler?.onAdd?.(widget("no-generation"), true);
    state.handler?.onAdd?.({ ...widget("null-status", 1), status: null } as KubeObject, true);
    state.handler?.onAdd?.({ ...widget("text-status", 1), status: "odd" } as KubeObject, true);
    assert.deepEqual(queued, [
      ["ns/new", NORMAL_PRIORITY],
      ["ns/changed", NORMAL_PRIORITY],
      ["ns/seen", LOW_PRIORITY],
      ["ns/unsaid", LOW_PRIORITY],
      ["ns/no-generation", LOW_PRIORITY],
      ["ns/null-status", NORMAL_PRIORITY],
      ["ns/text-status", LOW_PRIORITY],
    ]);
  });

  it("stops by removing its handler", () => {
    const { informer, state } = fakeInformer();
    const stop = informerSource(informer, self, [], "watch").start(() => {});
    assert.equal(state.removed, false);
    stop();
    assert.equal(state.removed, true);
  });
});
