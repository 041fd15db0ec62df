/**
 * Ownership across clusters: the hub-owner labels a child in a member carries, and
 * `MemberChildren` on fake members — the owner queued on the hub's controller when a child
 * changes, members recorded while engaged, children deleted by the finalizer's cleanup and pruned
 * from members no longer selected.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ConfigMap,
  type ConfigMapObject,
  type KubeObject,
  type ResourceType,
} from "../../../src/api/index.ts";
import { createStore, type InformerHandler } from "../../../src/cache/index.ts";
import { NotFoundError, ServerError } from "../../../src/client/index.ts";
import type { Runnable } from "../../../src/manager/index.ts";
import {
  type FleetCluster,
  HUB_OWNER_LABELS,
  hubChildrenSelector,
  hubOwnerKey,
  hubOwnerLabels,
  MemberChildren,
  withHubOwner,
} from "../../../src/multicluster/index.ts";
import { apiError } from "../ownership/support.ts";
import { Widget } from "./support.ts";

const owner: KubeObject = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "apps", uid: "uid-1" },
};

/** A ConfigMap named `name`, of no owner. */
function bare(name: string, resourceVersion = "1"): ConfigMapObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "apps", resourceVersion } };
}

/** A ConfigMap of `of` named `name`. */
function child(name: string, of: KubeObject = owner, resourceVersion = "1"): ConfigMapObject {
  return withHubOwner(of, bare(name, resourceVersion));
}

/** A member whose cache holds `cached` and whose apiserver holds `live`; it records deletes. */
function fakeMember(name: string, cached: ConfigMapObject[] = [], live = cached) {
  const { reader, writer } = createStore<ConfigMapObject>();
  writer.replace(cached);
  const handlers: InformerHandler<KubeObject>[] = [];
  const scopes: unknown[] = [];
  const deleted: string[] = [];
  const lists: string[] = [];
  const informer = {
    store: reader,
    addHandler: (handler: InformerHandler<KubeObject>) => {
      handlers.push(handler);
      return () => handlers.splice(handlers.indexOf(handler), 1);
    },
  };
  const cluster = {
    name,
    cache: {
      informer: (_type: ResourceType, scope: unknown) => {
        scopes.push(scope);
        return informer;
      },
    },
    client: {
      list: async (_type: ResourceType, opts: { labelSelector: string }) => {
        lists.push(opts.labelSelector);
        return { items: live };
      },
      delete: async (_type: ResourceType, name: string, opts: { namespace?: string }) => {
        deleted.push(`${opts.namespace}/${name}`);
        if (name === "gone") throw apiError(NotFoundError, 404, "NotFound");
        return undefined;
      },
    },
  } as unknown as FleetCluster;
  return { cluster, handlers, scopes, deleted, lists };
}

/** A hub client reading the owners `hub` holds, by key; `fail` makes every read a 500. */
function hubClient(hub: readonly KubeObject[], fail = false) {
  return {
    get: async (_type: ResourceType, name: string, opts: { namespace?: string }) => {
      if (fail) throw apiError(ServerError, 500, "InternalError");
      const found = hub.find((o) => o.metadata.name === name && o.metadata.namespace === opts.namespace);
      if (!found) throw apiError(NotFoundError, 404, "NotFound");
      return found;
    },
  };
}

/** `children` with a hub controller recording what it is asked to queue, and `members` engaged. */
async function engaged(members: ReturnType<typeof fakeMember>[], client = hubClient([owner])) {
  const children = new MemberChildren({ owner: Widget, kinds: [ConfigMap] });
  const queued: string[] = [];
  const logged: string[] = [];
  const logger = {
    info: (_: unknown, msg: string) => logged.push(msg),
    warn: (_: unknown, msg: string) => logged.push(msg),
  };
  const hub = {
    name: "widgets",
    enqueue: (key: string, reason: string) => queued.push(`${key} ${reason}`),
    enqueueAll: (reason: string) => queued.push(`all ${reason}`),
  };
  children.queueTo({ controllers: [hub], client } as never, "widgets");
  const stops = members.map((member) => {
    const runnables: Runnable[] = [];
    children.setup(
      { cache: member.cluster.cache, add: (r: Runnable) => runnables.push(r) } as never,
      member.cluster,
    );
    const stop = new AbortController();
    const running = runnables[0]?.start({ signal: stop.signal, logger } as never);
    return async () => {
      stop.abort();
      await running;
    };
  });
  return { children, queued, logged, stop: () => Promise.all(stops.map((s) => s())) };
}

describe("hub-owner labels", () => {
  it("name the owner's kind, namespace, name and uid, beside the child's own labels", () => {
    const labelled = withHubOwner(owner, {
      ...bare("c"),
      metadata: { name: "c", labels: { app: "x" } },
    });
    assert.deepEqual(labelled.metadata.labels, {
      app: "x",
      "kubeloop.dev/hub-owner-kind": "Widget",
      "kubeloop.dev/hub-owner-namespace": "apps",
      "kubeloop.dev/hub-owner-name": "w",
      "kubeloop.dev/hub-owner-uid": "uid-1",
    });
    assert.equal(hubChildrenSelector(owner), "kubeloop.dev/hub-owner-uid=uid-1");
  });

  it("leave the namespace out for a cluster-scoped owner, whose key is its name", () => {
    const clusterScoped = { ...owner, metadata: { name: "global", uid: "uid-2" } };
    assert.equal(hubOwnerLabels(clusterScoped)[HUB_OWNER_LABELS.namespace], undefined);
    assert.equal(hubOwnerKey(withHubOwner(clusterScoped, bare("c")), "Widget"), "global");
  });

  it("give the owner's key only for an owner of the kind asked", () => {
    assert.equal(hubOwnerKey(child("c"), "Widget"), "apps/w");
    assert.equal(hubOwnerKey(child("c"), "Gadget"), undefined);
    assert.equal(hubOwnerKey(bare("c"), "Widget"), undefined);
  });
});

describe("MemberChildren", () => {
  it("watches the children of owners of its kind in each member, and records the member while engaged", async () => {
    const east = fakeMember("east");
    const { children, queued, stop } = await engaged([east]);
    assert.ok(east.scopes.length > 0 && east.scopes.every((scope) => scope === children.scope));
    assert.deepEqual(
      children.members().map((m) => m.name),
      ["east"],
    );
    assert.equal(children.member("east"), east.cluster);
    assert.deepEqual(queued, ["all member east engaged"]);
    await stop();
    assert.deepEqual(children.members(), []);
    assert.deepEqual(queued.at(-1), "all member east disengaged");
    assert.equal(east.handlers.length, 0);
  });

  it("queues the owner of a child created, edited or deleted in a member (drift repair)", async () => {
    const east = fakeMember("east");
    const { queued, stop } = await engaged([east]);
    const [handler] = east.handlers as [InformerHandler<KubeObject>];
    handler.onDelete?.(child("c"));
    handler.onUpdate?.(child("c", owner, "1"), child("c", owner, "2"));
    handler.onUpdate?.(child("c", owner, "2"), child("c", owner, "2"));
    handler.onAdd?.(child("c", { ...owner, kind: "Gadget" }), false);
    await stop();
    assert.deepEqual(queued.slice(1, -1), [
      "apps/w member:east:ConfigMap:delete",
      "apps/w member:east:ConfigMap:update",
    ]);
  });

  it("cleans up an owner's children in every engaged member, found by a list of its uid", async () => {
    const east = fakeMember("east", [], [child("a"), child("gone")]);
    const west = fakeMember("west", [], [child("b")]);
    const { children, stop } = await engaged([east, west]);
    await children.cleanup(owner as never);
    await stop();
    assert.deepEqual(east.lists, ["kubeloop.dev/hub-owner-uid=uid-1"]);
    assert.deepEqual(east.deleted, ["apps/a", "apps/gone"]);
    assert.deepEqual(west.deleted, ["apps/b"]);
  });

  it("prunes an owner's cached children from the engaged members it no longer selects", async () => {
    const other = { ...owner, metadata: { ...owner.metadata, name: "v", uid: "uid-9" } };
    const east = fakeMember("east", [child("a")]);
    const west = fakeMember("west", [child("b"), child("c", other)]);
    const { children, stop } = await engaged([east, west], hubClient([owner, other]));
    assert.deepEqual(
      children.cached(west.cluster, ConfigMap, owner as never).map((c) => c.metadata.name),
      ["b"],
    );
    await children.prune(owner as never, ["east"]);
    await stop();
    assert.deepEqual(east.deleted, []);
    assert.deepEqual(west.deleted, ["apps/b"]);
    assert.deepEqual(west.lists, []);
  });

  it("collects, once a member is engaged, the children whose owner the hub no longer has under their uid", async () => {
    const removed = { ...owner, metadata: { ...owner.metadata, name: "v", uid: "uid-9" } };
    const replaced = { ...owner, metadata: { ...owner.metadata, uid: "uid-0" } };
    const east = fakeMember("east", [child("kept"), child("orphan", removed), child("old", replaced)]);
    const { logged, stop } = await engaged([east]);
    await stop();
    assert.deepEqual(east.deleted.sort(), ["apps/old", "apps/orphan"]);
    assert.deepEqual(logged, ["orphaned children collected", "orphaned children collected"]);
  });

  it("deletes nothing when the hub cannot be read", async () => {
    const removed = { ...owner, metadata: { ...owner.metadata, name: "v", uid: "uid-9" } };
    const east = fakeMember("east", [child("orphan", removed)]);
    const { children, stop } = await engaged([east], hubClient([], true));
    assert.equal(children.member("east"), east.cluster, "the member is engaged all the same");
    await stop();
    assert.deepEqual(east.deleted, []);
  });
});
