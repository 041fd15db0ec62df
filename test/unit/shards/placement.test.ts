/**
 * Where a sharded manager's informers go per shard (`shardPlacement`), which keys a shard's
 * controller takes (`shardAccepts`), and the setups it refuses.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { pino } from "pino";
import { ConfigMap, Deployment, Namespace, Role, Secret } from "../../../src/api/index.ts";
import { InformerCache, type InformerCacheOptions } from "../../../src/cache/index.ts";
import { Client } from "../../../src/client/index.ts";
import type { FakeClock } from "../../../src/clock/index.ts";
import { controller, recordDeclarations } from "../../../src/controller/index.ts";
import { Manager, ShardingSetupError } from "../../../src/manager/index.ts";
import { inRanges, shardHash } from "../../../src/sharding/index.ts";
import { OutsideShardReadError } from "../../../src/shards/errors.ts";
import type { HeldShard } from "../../../src/shards/index.ts";
import {
  bucketSelector,
  type Placed,
  type Placement,
  shardAccepts,
  shardPlacement,
  warnLostMappings,
} from "../../../src/shards/placement.ts";
import { ShardCache } from "../../../src/shards/shard-cache.ts";
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

/** Options of a shard's cache whose informers list first, as `newCache`'s do, on `clock`. */
function listFirst(clock: FakeClock): InformerCacheOptions {
  return { clock, informer: { watch: { initialState: "list" } } };
}

/** The scope a shard's own informer gets, where it has one. */
function scopeOf(placed: Placed) {
  assert.ok(placed && "scope" in placed, "placed at a scope of its own");
  return placed.scope;
}

describe("shardPlacement", () => {
  test("by namespace: every namespaced kind declared narrowed to the shard, cluster-scoped kinds shared", async () => {
    const place = shardPlacement("namespace", shard, await declarations, () => true);
    assert.deepEqual(scopeOf(place(ConfigMap, { labelSelector: "app=x" })), {
      labelSelector: "app=x",
      shard: { key: "namespace", ranges: [lowHalf] },
    });
    assert.equal(place(Namespace, {}), undefined);
  });

  test("by namespace: an informer of one namespace, and a kind nobody declared, are the shared ones, whole", async () => {
    const place = shardPlacement("namespace", shard, await declarations, () => true);
    assert.equal(
      place(ConfigMap, { namespace: namespaceIn(false) }),
      undefined,
      "all of it or none would be the shard's",
    );
    assert.equal(place(ConfigMap, { namespace: namespaceIn(true) }), undefined);
    assert.equal(place(Role, {}), undefined, "read without a declaration: any namespace may be asked for");
  });

  test("by namespace: on shard 0, the namespaced kinds a controller of a cluster-scoped kind owns or watches are whole", async () => {
    const declared = await recordDeclarations((host) => {
      controller(host)
        .for(Namespace)
        .owns(ConfigMap)
        .watches(Secret, () => [])
        .reconcile(async () => {});
      controller(host)
        .for(Deployment)
        .owns(ConfigMap)
        .reconcile(async () => {});
    });
    const shard0 = shardPlacement("namespace", shard, declared, () => true);
    assert.deepEqual([shard0(ConfigMap, {}), shard0(Secret, {})], [undefined, undefined]);
    assert.ok(shard0(Deployment, {}), "the namespaced controller's own kind stays narrowed");
    const shard1 = shardPlacement("namespace", { index: 1, range: lowHalf }, declared, () => true);
    assert.ok(shard1(ConfigMap, {}), "where the cluster-scoped controller does not run, narrowed");
  });

  test("where the apiserver does not shard a kind no controller reconciles: the shared informer, through the shard's filter", async () => {
    const place = shardPlacement("namespace", shard, await declarations, (type) => type !== ConfigMap);
    const placed = place(ConfigMap, {});
    assert.ok(placed && "filter" in placed, "owned only: not labelled by the replicas");
    assert.deepEqual(
      [placed.filter(cm("c", namespaceIn(true))), placed.filter(cm("c", namespaceIn(false)))],
      [true, false],
    );
    assert.ok(place(Secret, {}) && "scope" in (place(Secret, {}) ?? {}));
  });

  test("by uid: primary kinds by uid, owned kinds by the shard label (once), kinds also watched shared", async () => {
    const place = shardPlacement("uid", { index: 3, range: lowHalf }, await declarations, () => true);
    assert.deepEqual(scopeOf(place(Deployment, {})), { shard: { key: "uid", ranges: [lowHalf] } });
    const owned = scopeOf(place(ConfigMap, { labelSelector: "app=x" }));
    assert.deepEqual(owned, { labelSelector: `app=x,${bucketSelector([{ range: lowHalf }])}` });
    assert.deepEqual(scopeOf(place(ConfigMap, owned)), owned, "placing twice changes nothing");
    assert.equal(place(Secret, {}), undefined, "primary of one controller, watched by another");
    assert.equal(place(Namespace, {}), undefined, "not declared");
  });

  test("by uid: an owned kind's objects without the shard label (children made with client.create) are read whole beside the shard's", async () => {
    const place = shardPlacement("uid", { index: 3, range: lowHalf }, await declarations, () => true);
    const labelled = `app=x,${bucketSelector([{ range: lowHalf }])}`;
    for (const scope of [{ labelSelector: "app=x" }, { labelSelector: labelled }]) {
      const placed = place(ConfigMap, scope);
      assert.ok(placed && "unrouted" in placed);
      assert.deepEqual(placed.unrouted, { labelSelector: "app=x,!kubeloop.dev/shard" });
    }
  });
});

describe("shardAccepts", () => {
  test("by namespace: the keys of the shard's namespaces", () => {
    const informer = new InformerCache(new FakeWatchClient()).informer(ConfigMap);
    const accepts = shardAccepts("namespace", shard, informer);
    assert.equal(accepts(`${namespaceIn(true)}/a`), true);
    assert.equal(accepts(`${namespaceIn(false)}/a`), false);
  });

  test("by namespace: a key of another shard's namespace is refused and told, with the reason it was queued for", () => {
    const informer = new InformerCache(new FakeWatchClient()).informer(ConfigMap);
    const refused: string[] = [];
    const accepts = shardAccepts("namespace", shard, informer, (key, reason) =>
      refused.push(`${key} ${reason}`),
    );
    assert.equal(accepts(`${namespaceIn(true)}/a`, "mapped:Secret:update"), true);
    assert.equal(accepts(`${namespaceIn(false)}/b`, "mapped:Secret:update"), false);
    assert.deepEqual(refused, [`${namespaceIn(false)}/b mapped:Secret:update`]);
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

describe("warnLostMappings", () => {
  test("by namespace: warns once per kind when a map of a kind narrowed to the shard returns another shard's keys, naming the fix", async () => {
    const [declaration] = await recordDeclarations((host) => {
      controller(host, "proxies")
        .for(Deployment)
        .watches(Secret, () => [])
        .watches(ConfigMap, () => [], { scope: { namespace: "operator" } })
        .reconcile(async () => {});
    });
    assert.ok(declaration);
    const place = shardPlacement("namespace", shard, [declaration], () => true);
    const warnings: string[] = [];
    const refused = warnLostMappings(
      declaration,
      place,
      () => ({}),
      (message) => warnings.push(message),
    );
    refused("other/a", "mapped:Secret:update");
    refused("other/b", "mapped:Secret:delete");
    refused("other/c", "mapped:ConfigMap:update");
    refused("other/d", "watch:Deployment:update");
    assert.equal(warnings.length, 1, "once, for the narrowed kind only");
    assert.match(
      warnings[0] ?? "",
      /"proxies" maps Secret objects to keys of namespaces other shards hold \(other\/a\)/,
    );
    assert.match(warnings[0] ?? "", /\.watches\(Secret, map, \{ scope: \{ namespace \} \}\)/);
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

  test("by uid: an owned kind holds the shard's labelled children and the unlabelled ones, and hears both", async (t) => {
    const { client, cache: shared, clock, stop } = newCache(t);
    const place = shardPlacement("uid", shard, await declarations, () => true);
    const cache = new ShardCache(client, listFirst(clock), shared, place, stop.signal);
    const informer = cache.informer(ConfigMap);
    const seen: string[] = [];
    informer.addHandler({ onAdd: (obj) => seen.push(obj.metadata.name ?? "") });
    const configMaps = client.kind("ConfigMap");
    configMaps.page([cm("made-by-create")], "5");
    const unlabelled = configMaps.stream();
    shared.start(stop.signal);
    await until(() => configMaps.lists.length === 1);
    assert.equal(configMaps.lists[0]?.labelSelector, "!kubeloop.dev/shard");
    configMaps.page([cm("made-by-ensure-child", "ns", "5", { "kubeloop.dev/shard": "7" })], "5");
    configMaps.stream();
    assert.equal(cache.synced, false);
    cache.start(stop.signal);
    await cache.waitForSync();
    assert.equal(configMaps.lists[1]?.labelSelector, bucketSelector([shard]));
    assert.deepEqual(names(informer.store.list()), ["made-by-create", "made-by-ensure-child"]);
    assert.equal(informer.store.get("ns/made-by-create")?.metadata.name, "made-by-create");
    assert.deepEqual(names((await cache.reader(ConfigMap)).list()), [
      "made-by-create",
      "made-by-ensure-child",
    ]);
    unlabelled.send("ADDED", cm("applied", "ns", "6"));
    await until(() => seen.includes("applied"));
    assert.deepEqual(seen.sort(), ["applied", "made-by-create", "made-by-ensure-child"]);
    assert.equal(cache.informer(ConfigMap), informer, "one informer per kind, for every caller");
  });

  test("by namespace: a cached read of a namespace outside the shard goes to an informer of that namespace, or throws naming the fix", async (t) => {
    const { client, cache: shared, clock, stop } = newCache(t);
    const [mine, theirs] = [namespaceIn(true), namespaceIn(false)];
    const place = shardPlacement("namespace", shard, await declarations, () => true);
    const cache = new ShardCache(client, listFirst(clock), shared, place, stop.signal);
    const configMaps = client.kind("ConfigMap");
    configMaps.page([cm("local", mine)], "5");
    configMaps.stream();
    cache.informer(ConfigMap);
    cache.start(stop.signal);
    shared.start(stop.signal);
    const reader = await cache.reader(ConfigMap);
    assert.equal(reader.get("local", mine)?.metadata.name, "local");
    assert.throws(
      () => reader.get("settings", theirs),
      (err: unknown) =>
        err instanceof OutsideShardReadError &&
        err.message.includes(`.watches(ConfigMap, map, { scope: { namespace: "${theirs}" } })`),
    );
    configMaps.page([cm("settings", theirs)], "6");
    configMaps.stream();
    cache.informer(ConfigMap, { namespace: theirs });
    await cache.waitForSync();
    assert.equal(reader.get("settings", theirs)?.metadata.name, "settings");
    assert.deepEqual(names(reader.list({ namespace: theirs })), ["settings"]);
    assert.deepEqual(names(reader.list()), ["local"], "a list of every namespace is the shard's");
  });
});
