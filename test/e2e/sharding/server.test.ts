/**
 * The apiserver's sharded list and watch (feature gate `ShardedListAndWatch`, on in the local
 * control plane) agree with kubeloop's hash, ranges and selectors: a shard's list holds exactly the
 * objects `inShard` places in it, the shards of a split partition a namespace, a selector of
 * ranges that do not touch is one `||` expression, and a sharded watch (and an informer) receives
 * only its shard.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { InformerCache } from "../../../src/cache/index.ts";
import type { Client } from "../../../src/client/index.ts";
import { inShard, type ShardRange, shardSelector, splitHashSpace } from "../../../src/sharding/index.ts";
import { decodeLines } from "../../../src/watch/index.ts";
import { eventually, testClient, testNamespace } from "../support.ts";

const configMap = (namespace: string, name: string): ConfigMapObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace },
  data: { n: name },
});

async function createMany(
  client: Client,
  ns: string,
  prefix: string,
  count: number,
): Promise<ConfigMapObject[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  return Promise.all(names.map((name) => client.create(ConfigMap, configMap(ns, name))));
}

const namesOf = (objects: readonly ConfigMapObject[]) => objects.map((o) => o.metadata.name ?? "").sort();
/** The test's own ConfigMaps: the controller manager adds kube-root-ca.crt to a namespace whenever it gets to it. */
const ours = (o: ConfigMapObject) => o.metadata.name?.startsWith("cm-") === true;

test("the shards of a split list exactly the objects kubeloop's hash places in them, echoing the selector", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  await createMany(client, ns, "cm", 40);
  // Every ConfigMap of the namespace: the 40 and the controller manager's kube-root-ca.crt.
  const { items: created } = await client.list(ConfigMap, { namespace: ns });
  const quarters = splitHashSpace(4);
  const seen: string[] = [];
  for (const quarter of quarters) {
    const selector = shardSelector("uid", [quarter]);
    const list = await client.list(ConfigMap, { namespace: ns, shardSelector: selector, limit: 7 });
    assert.deepEqual(list.shardInfo, { selector }, "the server applied the selector");
    const expected = created.filter((o) => inShard(o, "uid", [quarter]));
    assert.deepEqual(namesOf(list.items), namesOf(expected));
    seen.push(...namesOf(list.items));
  }
  assert.deepEqual(seen.sort(), namesOf(created), "the quarters partition the namespace");

  const [first, , third] = quarters as [ShardRange, ShardRange, ShardRange];
  const apart = shardSelector("uid", [first, third]);
  const both = await client.list(ConfigMap, { namespace: ns, shardSelector: apart });
  assert.deepEqual(both.shardInfo, { selector: apart });
  assert.deepEqual(namesOf(both.items), namesOf(created.filter((o) => inShard(o, "uid", [first, third]))));
});

test("a list by namespace hash holds every object of a namespace in the namespace's shard, none in the other", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  await createMany(client, ns, "cm", 5);
  const { items: created } = await client.list(ConfigMap, { namespace: ns });
  for (const half of splitHashSpace(2)) {
    const list = await client.list(ConfigMap, {
      namespace: ns,
      shardSelector: shardSelector("namespace", [half]),
    });
    const mine = inShard(created[0] as ConfigMapObject, "namespace", [half]);
    assert.deepEqual(namesOf(list.items), mine ? namesOf(created) : []);
  }
});

test("a sharded watch delivers the events of its shard only", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const [low] = splitHashSpace(2) as [ShardRange];
  const start = await client.list(ConfigMap, { namespace: ns });
  const abort = new AbortController();
  t.after(() => abort.abort());
  const res = await client.watchStream(ConfigMap, {
    namespace: ns,
    shardSelector: shardSelector("uid", [low]),
    resourceVersion: start.resourceVersion,
    signal: abort.signal,
  });
  const delivered: ConfigMapObject[] = [];
  void (async () => {
    for await (const event of decodeLines(res.body))
      delivered.push(event.object as unknown as ConfigMapObject);
  })().catch(() => {}); // ends with the abort
  const created = await createMany(client, ns, "cm", 20);
  // A fence: objects are created one by one until one falls in the shard; once its event arrives,
  // every earlier event of the namespace has been delivered or filtered (a watch is in order).
  let fence: ConfigMapObject;
  let i = 0;
  do fence = await client.create(ConfigMap, configMap(ns, `fence-${i++}`));
  while (!inShard(fence, "uid", [low]));
  await eventually(() => delivered.some((o) => o.metadata.name === fence.metadata.name), {
    timeoutMs: 15_000,
  });
  assert.ok(
    delivered.every((o) => inShard(o, "uid", [low])),
    "no event of the other shard",
  );
  assert.deepEqual(namesOf(delivered.filter(ours)), namesOf(created.filter((o) => inShard(o, "uid", [low]))));
});

test("an informer of one shard stores exactly that shard, filtered by the server (nothing dropped on the client)", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  await createMany(client, ns, "cm", 20);
  const { items: all } = await client.list(ConfigMap, { namespace: ns });
  const [low] = splitHashSpace(2) as [ShardRange];
  let dropped = 0;
  const cache = new InformerCache(client, { metrics: () => ({ outsideShard: () => dropped++ }) });
  const informer = cache.informer(ConfigMap, { namespace: ns, shard: { key: "uid", ranges: [low] } });
  const stop = new AbortController();
  t.after(() => stop.abort());
  cache.start(stop.signal);
  await cache.waitForSync(stop.signal);
  // Only the test's own: kube-root-ca.crt may arrive between the list above and the informer's.
  const stored = informer.store.list().filter(ours);
  assert.deepEqual(namesOf(stored), namesOf(all.filter((o) => ours(o) && inShard(o, "uid", [low]))));
  assert.equal(dropped, 0, "the apiserver sent only the shard");
});
