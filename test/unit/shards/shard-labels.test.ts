/**
 * The label path of sharding, where the apiserver ignores shard selectors: which kinds a shard
 * places by the shard label and with which selectors, which objects it labels, and the patch.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigMap, type KubeObject, Secret } from "../../../src/api/index.ts";
import {
  createStore,
  type Informer,
  type InformerHandler,
  parseLabelSelector,
} from "../../../src/cache/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { controller, recordDeclarations } from "../../../src/controller/index.ts";
import {
  bucketCount,
  bucketsOf,
  hashBucket,
  inRanges,
  type ShardRange,
  shardHash,
  splitHashSpace,
} from "../../../src/sharding/index.ts";
import type { HeldShard } from "../../../src/shards/index.ts";
import { joinInformers } from "../../../src/shards/joined-informers.ts";
import { bucketSelector, labelRoute, shardPlacement } from "../../../src/shards/placement.ts";
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
    assert.deepEqual(placed.scope, { labelSelector: `app=x,${bucketSelector([shard])}` });
    assert.deepEqual(placed.unrouted, { labelSelector: "app=x,!kubeloop.dev/shard" });
    const [mine, theirs] = [cm("a", namespaceIn(true)), cm("b", namespaceIn(false))];
    assert.equal(placed.labels.value(mine), String(hashBucket(shardHash(mine.metadata.namespace ?? ""))));
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

  test("a replica's shards merge into one selector of the buckets their ranges overlap", () => {
    const route = labelRoute({ labelSelector: "app=x" }, () => 0n);
    const [a, b, c] = splitHashSpace(64) as [ShardRange, ShardRange, ShardRange];
    const held = [c, a].map((range, index) => ({ index, range }));
    assert.deepEqual(route.scopeOf(held), {
      labelSelector: "app=x,kubeloop.dev/shard in (0,1,2,3,8,9,10,11)",
    });
    assert.deepEqual(route.scopeOf([{ index: 1, range: b }]), {
      labelSelector: "app=x,kubeloop.dev/shard in (4,5,6,7)",
    });
    const keeps = route.keeps({ index: 1, range: b });
    const labelled = (bucket: string) => cm("a", "ns", "1", { "kubeloop.dev/shard": bucket });
    assert.deepEqual(
      [keeps(labelled("5")), keeps(labelled("8")), keeps(labelled("x"))],
      [true, false, false],
    );
  });
});

/** A namespace whose hash is in `range`, and none of `others`. */
function namespaceInRange(range: ShardRange, from = 0): string {
  for (let i = from; ; i++) if (inRanges(shardHash(`ns-${i}`), [range])) return `ns-${i}`;
}

describe("buckets and shard counts", () => {
  test("1, 2, 3 then 4 shards: every bucket is watched by exactly the shards whose ranges overlap it, and every object kept by exactly the shard owning its hash", () => {
    // Objects labelled once, with their bucket, whatever the shard count: 2,000 namespaces.
    const objects = Array.from({ length: 2_000 }, (_, i) => {
      const namespace = `ns-${i}`;
      return cm("o", namespace, "1", { "kubeloop.dev/shard": String(hashBucket(shardHash(namespace))) });
    });
    const hashOf = (obj: { metadata: { namespace?: string } }) => shardHash(obj.metadata.namespace ?? "");
    for (const count of [1, 2, 3, 4]) {
      const shards = splitHashSpace(count).map((range, index) => ({ index, range }));
      const route = labelRoute({}, hashOf);
      for (let bucket = 0; bucket < bucketCount; bucket++) {
        const start = BigInt(bucket) << 56n;
        const overlapping = shards.filter((s) => s.range.start < start + (1n << 56n) && s.range.end > start);
        const watching = shards.filter((s) => bucketsOf(s.range).includes(bucket));
        assert.deepEqual(watching, overlapping, `bucket ${bucket} at ${count} shards`);
      }
      for (const obj of objects) {
        const selects = (s: HeldShard) =>
          parseLabelSelector(route.scopeOf([s]).labelSelector ?? "").matches(obj.metadata.labels);
        const watchedBy = shards.filter((s) => selects(s) && route.keeps(s)(obj));
        const owner = shards.filter((s) => inRanges(hashOf(obj), [s.range]));
        assert.deepEqual(
          watchedBy,
          owner,
          `${obj.metadata.namespace} at ${count} shards: kept by its owner alone`,
        );
      }
    }
  });

  test("a range's edges cut at most two buckets, whose objects are told apart by their full hash", () => {
    const [first, second] = splitHashSpace(3) as [ShardRange, ShardRange];
    const straddling = bucketsOf(first).filter((b) => bucketsOf(second).includes(b));
    assert.deepEqual(straddling, [85], "0x55… is where the first third ends");
    const route = labelRoute({}, (obj) => shardHash(obj.metadata.namespace ?? ""));
    const inFirst = namespaceInRange({ start: 85n << 56n, end: first.end });
    const inSecond = namespaceInRange({ start: second.start, end: 86n << 56n });
    const labelled = (namespace: string) => cm("a", namespace, "1", { "kubeloop.dev/shard": "85" });
    const [keepsFirst, keepsSecond] = [
      route.keeps({ index: 0, range: first }),
      route.keeps({ index: 1, range: second }),
    ];
    assert.deepEqual([keepsFirst(labelled(inFirst)), keepsSecond(labelled(inFirst))], [true, false]);
    assert.deepEqual([keepsFirst(labelled(inSecond)), keepsSecond(labelled(inSecond))], [false, true]);
  });

  test("every replica holding every shard watches any labelled object: the label selector of all 256 buckets is the label's presence", () => {
    assert.equal(bucketSelector([{ range: { start: 0n, end: 1n << 64n } }]), "kubeloop.dev/shard");
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

/**
 * `labelShardObjects` of ConfigMaps into bucket "2", on an informer whose handlers the test calls,
 * through a patch client answering as `answer` says; what it reports, as `name: message`.
 */
function labelConfigMaps(answer?: (name: string) => Promise<unknown>) {
  const { informer, handlers } = handledInformer();
  const { client, patches } = patchClient(answer);
  const errors: string[] = [];
  const moving = new Set<string>();
  const stop = labelShardObjects(
    client,
    ConfigMap,
    informer,
    () => "2",
    moving,
    (err, obj) => errors.push(`${obj.metadata.name}: ${(err as Error).message}`),
  );
  return { handlers, patches, errors, moving, stop };
}

describe("labelShardObjects", () => {
  test("labels an unlabelled object once, with a merge patch of the label alone, and leaves a labelled one be", async () => {
    let finish = () => {};
    const { handlers, patches, errors, moving } = labelConfigMaps(
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    const [handler] = handlers;
    handler?.onAdd?.(cm("a", "ns", "1"), true);
    handler?.onUpdate?.(cm("a", "ns", "1"), cm("a", "ns", "2"));
    handler?.onAdd?.(cm("b", "ns", "1", { "kubeloop.dev/shard": "2" }), true);
    assert.deepEqual(patches, [{ name: "a", namespace: "ns", patch: shardLabelPatch("2"), type: "merge" }]);
    assert.deepEqual(
      [...moving],
      ["ns/a"],
      "its move out of the unlabelled watch is expected before the patch returns",
    );
    assert.deepEqual(shardLabelPatch("2"), { metadata: { labels: { "kubeloop.dev/shard": "2" } } });
    finish();
    await until(() => {
      handler?.onUpdate?.(cm("a", "ns", "2"), cm("a", "ns", "3"));
      return patches.length === 2;
    });
    assert.deepEqual(errors, []);
  });

  test("an object gone meanwhile is nothing to report; any other failure is", async () => {
    const { handlers, errors, moving } = labelConfigMaps(async (name) => {
      if (name === "gone") throw notFound();
      throw new Error("forbidden");
    });
    handlers[0]?.onAdd?.(cm("gone"), false);
    handlers[0]?.onAdd?.(cm("refused"), false);
    await until(() => errors.length === 1 && moving.size === 0);
    assert.deepEqual(errors, ["refused: forbidden"]);
    assert.deepEqual([...moving], [], "neither moves: their leaving the unlabelled watch is a deletion");
  });

  test("stops when the function it returned is called", () => {
    const { handlers, stop } = labelConfigMaps();
    stop();
    assert.equal(handlers.length, 0);
  });
});

/** An informer whose store and handlers the test drives, as watch events would. */
function drivenInformer() {
  const { reader, writer } = createStore<KubeObject>();
  const handlers = new Set<InformerHandler<KubeObject>>();
  const informer = {
    store: reader,
    addHandler: (handler: InformerHandler<KubeObject>) => {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    addIndexer: (name: string, indexer: never) => writer.addIndexer(name, indexer),
  } as unknown as Informer<KubeObject>;
  return {
    informer,
    add: (obj: KubeObject) => {
      writer.apply(obj);
      for (const h of handlers) h.onAdd?.(obj, false);
    },
    delete: (obj: KubeObject) => {
      writer.delete(obj);
      for (const h of handlers) h.onDelete?.(obj);
    },
  };
}

describe("an object moving from the unlabelled watch to the labelled one", () => {
  const setup = () => {
    const [labelled, unlabelled] = [drivenInformer(), drivenInformer()];
    const clock = new FakeClock();
    const moves = { keys: new Set<string>(), clock, waitMs: 30_000 };
    const joined = joinInformers(labelled.informer, unlabelled.informer, moves);
    const heard: string[] = [];
    joined.addHandler({
      onAdd: (obj) => heard.push(`add ${obj.metadata.name}`),
      onDelete: (obj) => heard.push(`delete ${obj.metadata.name}`),
    });
    return { labelled, unlabelled, clock, moves, joined, heard };
  };

  test("the object this replica labelled stays readable, and is not told deleted, until the labelled watch delivers it", () => {
    const { labelled, unlabelled, moves, joined, heard } = setup();
    unlabelled.add(cm("a", "ns", "1"));
    moves.keys.add("ns/a");
    unlabelled.delete(cm("a", "ns", "2"));
    assert.equal(
      joined.store.get("ns/a")?.metadata.resourceVersion,
      "2",
      "a reconcile meanwhile still finds it",
    );
    assert.deepEqual(names(joined.store.list()), ["a"]);
    labelled.add(cm("a", "ns", "2", { "kubeloop.dev/shard": "7" }));
    assert.equal(joined.store.get("ns/a")?.metadata.labels?.["kubeloop.dev/shard"], "7");
    assert.deepEqual(heard, ["add a", "add a"], "never a deletion");
    assert.equal(moves.keys.size, 0);
  });

  test("the labelled watch delivering it first: the unlabelled watch's deletion is not told either", () => {
    const { labelled, unlabelled, moves, heard } = setup();
    unlabelled.add(cm("a", "ns", "1"));
    moves.keys.add("ns/a");
    labelled.add(cm("a", "ns", "2", { "kubeloop.dev/shard": "7" }));
    unlabelled.delete(cm("a", "ns", "2"));
    assert.deepEqual(heard, ["add a", "add a"]);
  });

  test("a deletion of an object nobody labelled is told at once", () => {
    const { unlabelled, joined, heard } = setup();
    unlabelled.add(cm("a", "ns", "1"));
    unlabelled.delete(cm("a", "ns", "1"));
    assert.deepEqual(heard, ["add a", "delete a"]);
    assert.equal(joined.store.get("ns/a"), undefined);
  });

  test("an object labelled, then deleted before the labelled watch saw it, is told deleted after the wait", () => {
    const { unlabelled, clock, moves, joined, heard } = setup();
    unlabelled.add(cm("a", "ns", "1"));
    moves.keys.add("ns/a");
    unlabelled.delete(cm("a", "ns", "2"));
    clock.advance(29_999);
    assert.deepEqual(heard, ["add a"]);
    clock.advance(1);
    assert.deepEqual(heard, ["add a", "delete a"]);
    assert.equal(joined.store.get("ns/a"), undefined);
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
    const bucket = String(hashBucket(shardHash(mine)));
    configMaps.page([cm("labelled", mine, "4", { "kubeloop.dev/shard": bucket })], "5");
    configMaps.stream();
    cache.start(stop.signal);
    await cache.waitForSync();
    assert.equal(configMaps.lists[1]?.labelSelector, bucketSelector([shard]));
    assert.deepEqual(names(informer.store.list()), ["labelled", "new-mine"]);
    assert.deepEqual(labelled, ["new-mine"], "only the shard's unlabelled objects are labelled by it");
  });
});
