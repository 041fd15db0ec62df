/**
 * Where a sharded manager's informers go per shard (`shardPlacement`), which keys a shard's
 * controller takes (`shardAccepts`), and the setups it refuses.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { pino } from "pino";
import { ConfigMap, Deployment, Namespace, Secret } from "../../../src/api/index.ts";
import { InformerCache } from "../../../src/cache/index.ts";
import { Client } from "../../../src/client/index.ts";
import { controller, recordDeclarations } from "../../../src/controller/index.ts";
import { Manager, ShardingSetupError } from "../../../src/manager/index.ts";
import {
  type Placed,
  type Placement,
  ShardCache,
  shardAccepts,
  shardPlacement,
} from "../../../src/manager/sharded.ts";
import { type HeldShard, inRanges, shardHash } from "../../../src/sharding/index.ts";
import { cm, names, newCache, startInformer } from "../cache/support.ts";
import { fakeConnection } from "../client/support.ts";
import { until } from "../controller/support.ts";
import { lowHalf, uidIn } from "../sharding/support.ts";
import { FakeWatchClient } from "../watch/support.ts";

const shard: HeldShard = { index: 0, range: lowHalf };

/** A namespace whose hash is (or is not) in the low half. */
function namespaceIn(inside: boolean): string {
  for (let i = 0; ; i++) if (inRanges(shardHash(`ns-${i}`), [lowHalf]) === inside) return `ns-${i}`;
}

const declarations = recordDeclarations((host) => {
  controller(host)
    .for(Deployment)
    .owns(ConfigMap)
    .watches(Secret, () => [])
    .reconcile(async () => {});
  controller(host, "secrets")
    .for(Secret)
    .reconcile(async () => {});
});

/** The scope a shard's own informer gets, where it has one. */
function scopeOf(placed: Placed) {
  assert.ok(placed && "scope" in placed, "placed at a scope of its own");
  return placed.scope;
}

describe("shardPlacement", () => {
  test("by namespace: every namespaced kind narrowed to the shard, cluster-scoped kinds shared", async () => {
    const place = shardPlacement("namespace", shard, await declarations, () => true);
    assert.deepEqual(scopeOf(place(ConfigMap, { namespace: "a" })), {
      namespace: "a",
      shard: { key: "namespace", ranges: [lowHalf] },
    });
    assert.equal(place(Namespace, {}), undefined);
  });

  test("where the apiserver does not shard a kind: the shared informer, through the shard's filter", async () => {
    const place = shardPlacement("namespace", shard, await declarations, (type) => type !== Secret);
    const placed = place(Secret, {});
    assert.ok(placed && "filter" in placed);
    const secret = (namespace: string) => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", namespace },
    });
    assert.deepEqual(
      [placed.filter(secret(namespaceIn(true))), placed.filter(secret(namespaceIn(false)))],
      [true, false],
    );
    assert.ok(place(ConfigMap, {}) && "scope" in (place(ConfigMap, {}) ?? {}));
  });

  test("by uid: primary kinds by uid, owned kinds by the shard label (once), kinds also watched shared", async () => {
    const place = shardPlacement("uid", { index: 3, range: lowHalf }, await declarations, () => true);
    assert.deepEqual(scopeOf(place(Deployment, {})), { shard: { key: "uid", ranges: [lowHalf] } });
    const owned = scopeOf(place(ConfigMap, { labelSelector: "app=x" }));
    assert.deepEqual(owned, { labelSelector: "app=x,kubeloop.dev/shard=3" });
    assert.deepEqual(scopeOf(place(ConfigMap, owned)), owned, "placing twice changes nothing");
    assert.equal(place(Secret, {}), undefined, "primary of one controller, watched by another");
    assert.equal(place(Namespace, {}), undefined, "not declared");
  });
});

describe("shardAccepts", () => {
  test("by namespace: the keys of the shard's namespaces", () => {
    const informer = new InformerCache(new FakeWatchClient()).informer(ConfigMap);
    const accepts = shardAccepts("namespace", shard, informer);
    assert.equal(accepts(`${namespaceIn(true)}/a`), true);
    assert.equal(accepts(`${namespaceIn(false)}/a`), false);
  });

  test("by uid: the keys of the shard's objects the informer holds, none it does not know", async (t) => {
    const { client, informer, start } = startInformer(t);
    const withUid = (name: string, uid: string) => {
      const object = cm(name);
      return { ...object, metadata: { ...object.metadata, uid } };
    };
    client.page([withUid("mine", uidIn([lowHalf], true)), withUid("theirs", uidIn([lowHalf], false))], "5");
    client.stream();
    void start();
    await informer.waitForSync();
    const accepts = shardAccepts("uid", shard, informer);
    assert.deepEqual([accepts("ns/mine"), accepts("ns/theirs"), accepts("ns/unknown")], [true, false, false]);
  });
});

describe("a sharded manager", () => {
  const options = {
    name: "w",
    client: new Client(fakeConnection()),
    logger: pino({ level: "silent" }),
    metrics: false as const,
    health: false as const,
  };

  test("refuses controllers given to it directly, naming manager.setup", async () => {
    const manager = await Manager.create({ ...options, sharding: {} });
    assert.throws(
      () =>
        controller(manager)
          .for(ConfigMap)
          .reconcile(async () => {}),
      (err: unknown) => err instanceof ShardingSetupError && /manager\.setup/.test(err.message),
    );
  });

  test("refuses leader election alongside", async () => {
    await assert.rejects(
      Manager.create({ ...options, sharding: {}, leaderElection: {} }),
      ShardingSetupError,
    );
  });
});

describe("ShardCache", () => {
  test("a kind the apiserver does not shard: the shared informer through the shard's filter, its handlers removed when the shard stops", async (t) => {
    const { client, cache: shared, stop } = newCache(t);
    const [mine, theirs] = [namespaceIn(true), namespaceIn(false)];
    const configMaps = client.kind("ConfigMap");
    configMaps.page([cm("a", mine), cm("b", theirs)], "5");
    const stream = configMaps.stream();
    shared.start(stop.signal);
    const stopped = new AbortController();
    const place: Placement = () => ({ filter: (obj) => obj.metadata.namespace === mine });
    const cache = new ShardCache(client, {}, shared, place, stopped.signal);
    const informer = cache.informer(ConfigMap);
    const seen: string[] = [];
    informer.addHandler({ onAdd: (obj) => seen.push(obj.metadata.name ?? "") });
    await shared.waitForSync();
    assert.deepEqual(names(informer.store.list()), ["a"]);
    assert.deepEqual([informer.store.size, informer.store.get(`${theirs}/b`)], [1, undefined]);
    assert.deepEqual(names((await cache.reader(ConfigMap)).list()), ["a"]);
    assert.deepEqual(cache.informers(), [], "the shard has no informer of its own");

    stream.send("ADDED", cm("c", theirs, "6")).send("ADDED", cm("d", mine, "7"));
    await until(() => shared.informer(ConfigMap).store.size === 4);
    stopped.abort();
    stream.send("ADDED", cm("e", mine, "8"));
    await until(() => shared.informer(ConfigMap).store.size === 5);
    assert.deepEqual(seen, ["a", "d"], "only the shard's, and nothing after it stopped");
  });
});
