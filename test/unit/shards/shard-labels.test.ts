/**
 * The label path of sharding, where the apiserver ignores shard selectors: which kinds a shard
 * places by the shard label and with which selectors, which objects it labels, and the patch.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigMap, type KubeObject, Secret } from "../../../src/api/index.ts";
import type { Informer, InformerHandler } from "../../../src/cache/index.ts";
import { controller, recordDeclarations } from "../../../src/controller/index.ts";
import { inRanges, shardHash } from "../../../src/sharding/index.ts";
import type { HeldShard } from "../../../src/shards/index.ts";
import { labelRoute, shardPlacement } from "../../../src/shards/placement.ts";
import { ShardCache } from "../../../src/shards/shard-cache.ts";
import { labelShardObjects, shardLabelPatch } from "../../../src/shards/shard-labels.ts";
import { cm, names, newCache } from "../cache/support.ts";
import { until } from "../controller/support.ts";
import { lowHalf } from "../sharding/support.ts";
import { notFound } from "../status/update-status-support.ts";

const shard: HeldShard = { index: 2, range: lowHalf };
const gateOff = () => false;

/** A namespace whose hash is (or is not) in the low half. */
function namespaceIn(inside: boolean): string {
  for (let i = 0; ; i++) if (inRanges(shardHash(`ns-${i}`), [lowHalf]) === inside) return `ns-${i}`;
}

const declarations = recordDeclarations((host) => {
  controller(host)
    .for(ConfigMap)
    .watches(Secret, () => [])
    .reconcile(async () => {});
});

describe("placement by the shard label", () => {
  test("with the gate off, a primary kind is watched by its shard's label, beside its unlabelled objects of the shard", async () => {
    const place = shardPlacement("namespace", shard, await declarations, gateOff);
    const placed = place(ConfigMap, { labelSelector: "app=x" });
    assert.ok(placed && "scope" in placed && placed.labels);
    assert.deepEqual(placed.scope, { labelSelector: "app=x,kubeloop.dev/shard=2" });
    assert.deepEqual(placed.unrouted, { labelSelector: "app=x,!kubeloop.dev/shard" });
    assert.equal(placed.labels.value, "2");
    const [mine, theirs] = [cm("a", namespaceIn(true)), cm("b", namespaceIn(false))];
    assert.deepEqual([placed.labels.keeps(mine), placed.labels.keeps(theirs)], [true, false]);
    const again = place(ConfigMap, placed.scope);
    assert.ok(again && "scope" in again);
    assert.deepEqual(
      [again.scope, again.unrouted],
      [placed.scope, placed.unrouted],
      "placing its scope again changes nothing",
    );
  });

  test("with the gate off, a kind only watched is not labelled: the shared informer through the shard's filter", async () => {
    const placed = shardPlacement("namespace", shard, await declarations, gateOff)(Secret, {});
    assert.ok(placed && "filter" in placed);
  });

  test("with the gate on, the primary kind keeps the server's shard selector", async () => {
    const placed = shardPlacement("namespace", shard, await declarations, () => true)(ConfigMap, {});
    assert.ok(placed && "scope" in placed);
    assert.deepEqual(placed.scope, { shard: { key: "namespace", ranges: [lowHalf] } });
    assert.equal(placed.labels, undefined);
  });

  test("by uid with the gate off: the shard's unlabelled objects are those whose uid hashes into it", async () => {
    const placed = shardPlacement("uid", shard, await declarations, gateOff)(ConfigMap, {});
    assert.ok(placed && "scope" in placed && placed.labels);
    const withUid = (uid: string) => ({ ...cm("a"), metadata: { ...cm("a").metadata, uid } });
    const uids = ["u-0", "u-1", "u-2", "u-3"];
    assert.deepEqual(
      uids.map((uid) => placed.labels?.keeps(withUid(uid))),
      uids.map((uid) => inRanges(shardHash(uid), [lowHalf])),
    );
  });

  test("a replica's shards merge into one selector of their label values", () => {
    const route = labelRoute({ labelSelector: "app=x" });
    const held = [7, 2, 11].map((index) => ({ index, range: lowHalf }));
    assert.deepEqual(route.scopeOf(held), { labelSelector: "app=x,kubeloop.dev/shard in (2,7,11)" });
    assert.equal(
      route.keeps({ index: 7, range: lowHalf })(cm("a", "ns", "1", { "kubeloop.dev/shard": "7" })),
      true,
    );
    assert.equal(
      route.keeps({ index: 7, range: lowHalf })(cm("a", "ns", "1", { "kubeloop.dev/shard": "2" })),
      false,
    );
  });
});

/** An informer whose handlers the test calls. */
function handledInformer(): { informer: Informer<KubeObject>; handlers: InformerHandler<KubeObject>[] } {
  const handlers: InformerHandler<KubeObject>[] = [];
  const informer = {
    addHandler: (handler: InformerHandler<KubeObject>) => {
      handlers.push(handler);
      return () => handlers.splice(handlers.indexOf(handler), 1);
    },
  } as unknown as Informer<KubeObject>;
  return { informer, handlers };
}

/** A patch client that records its calls and answers them as `answer` says. */
function patchClient(answer: (name: string) => Promise<unknown> = async () => ({})) {
  const patches: { name: string; namespace?: string; patch: unknown; type: string }[] = [];
  const client = {
    patch: (_type: unknown, name: string, patch: unknown, opts: { type: string; namespace?: string }) => {
      patches.push({ name, namespace: opts.namespace, patch, type: opts.type });
      return answer(name);
    },
  };
  return { client: client as never, patches };
}

describe("labelShardObjects", () => {
  test("labels an unlabelled object once, with a merge patch of the label alone, and leaves a labelled one be", async () => {
    const { informer, handlers } = handledInformer();
    let finish = () => {};
    const { client, patches } = patchClient(() => new Promise<void>((resolve) => (finish = resolve)));
    const errors: unknown[] = [];
    labelShardObjects(client, ConfigMap, informer, "2", (err) => errors.push(err));
    const [handler] = handlers;
    handler?.onAdd?.(cm("a", "ns", "1"), true);
    handler?.onUpdate?.(cm("a", "ns", "1"), cm("a", "ns", "2"));
    handler?.onAdd?.(cm("b", "ns", "1", { "kubeloop.dev/shard": "2" }), true);
    assert.deepEqual(patches, [{ name: "a", namespace: "ns", patch: shardLabelPatch("2"), type: "merge" }]);
    assert.deepEqual(shardLabelPatch("2"), { metadata: { labels: { "kubeloop.dev/shard": "2" } } });
    finish();
    await until(() => {
      handler?.onUpdate?.(cm("a", "ns", "2"), cm("a", "ns", "3"));
      return patches.length === 2;
    });
    assert.deepEqual(errors, []);
  });

  test("an object gone meanwhile is nothing to report; any other failure is", async () => {
    const { informer, handlers } = handledInformer();
    const { client } = patchClient(async (name) => {
      if (name === "gone") throw notFound();
      throw new Error("forbidden");
    });
    const errors: string[] = [];
    labelShardObjects(client, ConfigMap, informer, "2", (err, obj) =>
      errors.push(`${obj.metadata.name}: ${(err as Error).message}`),
    );
    handlers[0]?.onAdd?.(cm("gone"), false);
    handlers[0]?.onAdd?.(cm("refused"), false);
    await until(() => errors.length === 1);
    assert.deepEqual(errors, ["refused: forbidden"]);
  });

  test("stops when the function it returned is called", () => {
    const { informer, handlers } = handledInformer();
    const stop = labelShardObjects(patchClient().client, ConfigMap, informer, "2", () => {});
    stop();
    assert.equal(handlers.length, 0);
  });
});

describe("ShardCache on the label path", () => {
  test("holds the shard's labelled objects and its unlabelled ones, labels the latter, and neither sees nor labels another shard's", async (t) => {
    const { client, cache: shared, clock, stop } = newCache(t);
    const [mine, theirs] = [namespaceIn(true), namespaceIn(false)];
    const place = shardPlacement("namespace", shard, await declarations, gateOff);
    const labelled: string[] = [];
    const cache = new ShardCache(
      client,
      { clock, informer: { watch: { initialState: "list" } } },
      shared,
      place,
      stop.signal,
      undefined,
      (_type, informer) => informer.addHandler({ onAdd: (obj) => labelled.push(obj.metadata.name ?? "") }),
    );
    const informer = cache.informer(ConfigMap);
    const configMaps = client.kind("ConfigMap");
    configMaps.page([cm("new-mine", mine), cm("new-theirs", theirs)], "5");
    configMaps.stream();
    shared.start(stop.signal);
    await until(() => configMaps.lists.length === 1);
    assert.equal(configMaps.lists[0]?.labelSelector, "!kubeloop.dev/shard");
    configMaps.page([cm("labelled", mine, "4", { "kubeloop.dev/shard": "2" })], "5");
    configMaps.stream();
    cache.start(stop.signal);
    await cache.waitForSync();
    assert.equal(configMaps.lists[1]?.labelSelector, "kubeloop.dev/shard=2");
    assert.deepEqual(names(informer.store.list()), ["labelled", "new-mine"]);
    assert.deepEqual(labelled, ["new-mine"], "only the shard's unlabelled objects are labelled by it");
  });
});
