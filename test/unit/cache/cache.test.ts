import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject, Namespace, Secret } from "../../../src/api/index.ts";
import { MissingInformerError } from "../../../src/cache/index.ts";
import { type ShardRange, splitHashSpace } from "../../../src/sharding/index.ts";
import { flush, isSettled } from "../watch/support.ts";
import { cm, names, newCache, withManagedFields } from "./support.ts";

const ns = (name: string) => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, resourceVersion: "1" },
});

describe("InformerCache: sharing", () => {
  it("shares one informer per kind and scope", (t) => {
    const { cache } = newCache(t);
    const all = cache.informer(ConfigMap);
    assert.equal(cache.informer(ConfigMap), all);
    assert.equal(cache.informer(ConfigMap, {}), all, "the default scope of a cache without namespace is {}");
    const inA = cache.informer(ConfigMap, { namespace: "a" });
    assert.notEqual(inA, all);
    assert.equal(cache.informer(ConfigMap, { namespace: "a" }), inA);
    assert.notEqual(cache.informer(ConfigMap, { namespace: "a", labelSelector: "x" }), inA);
    assert.notEqual(cache.informer(Secret), all);
    assert.equal(cache.informers().length, 4);
  });

  it("keys informers by scope whatever the order of its fields, ignoring empty ones", (t) => {
    const { cache } = newCache(t);
    const scoped = cache.informer(ConfigMap, {
      namespace: "a",
      labelSelector: "app=web",
      metadataOnly: true,
    });
    assert.equal(
      cache.informer(ConfigMap, { metadataOnly: true, labelSelector: "app=web", namespace: "a" }),
      scoped,
    );
    assert.equal(
      cache.informer(ConfigMap, {
        labelSelector: "app=web",
        fieldSelector: "",
        metadataOnly: true,
        namespace: "a",
      }),
      scoped,
    );
    const all = cache.informer(ConfigMap, {});
    assert.equal(cache.informer(ConfigMap, { namespace: undefined, metadataOnly: false }), all);
    assert.equal(cache.informers().length, 2);
  });

  it("keys a shard by the hashes it covers: the same ranges in any order share an informer, others do not", (t) => {
    const { cache } = newCache(t);
    const [a, b, c] = splitHashSpace(3) as [ShardRange, ShardRange, ShardRange];
    const ab = cache.informer(ConfigMap, { shard: { key: "uid", ranges: [a, b] } });
    assert.equal(cache.informer(ConfigMap, { shard: { key: "uid", ranges: [b, a] } }), ab);
    assert.notEqual(cache.informer(ConfigMap, { shard: { key: "uid", ranges: [c] } }), ab);
    assert.notEqual(cache.informer(ConfigMap, { shard: { key: "namespace", ranges: [a, b] } }), ab);
    assert.notEqual(cache.informer(ConfigMap), ab, "the whole kind is not a shard of it");
    assert.equal(cache.informers().length, 4);
  });

  it("scopes namespaced kinds to the cache's namespace, and leaves cluster-scoped kinds alone", (t) => {
    const { cache } = newCache(t, { namespace: "team" });
    assert.deepEqual(cache.scopeFor(ConfigMap), { namespace: "team" });
    assert.deepEqual(cache.scopeFor(Namespace), { namespace: undefined });
    assert.equal(cache.informer(ConfigMap).scope.namespace, "team");
    assert.equal(cache.informer(Namespace).scope.namespace, undefined);
  });

  it("uses a per-kind scope override, within the cache's namespace unless it names one", (t) => {
    const { cache } = newCache(t, {
      namespace: "team",
      byKind: {
        "v1/Secret": { metadataOnly: true },
        "v1/ConfigMap": { namespace: "", labelSelector: "app=web" },
        "v1/Namespace": { labelSelector: "tier=prod" },
      },
    });
    assert.deepEqual(cache.scopeFor(Secret), { metadataOnly: true, namespace: "team" });
    assert.equal(cache.informer(Secret).scope.metadataOnly, true);
    assert.equal(cache.informer(Secret).scope.namespace, "team");
    assert.deepEqual(cache.scopeFor(ConfigMap), { namespace: "", labelSelector: "app=web" });
    assert.deepEqual(cache.scopeFor(Namespace), { labelSelector: "tier=prod", namespace: undefined });
  });

  it("adds indexers to an existing informer", async (t) => {
    const { cache, client, stop } = newCache(t);
    const informer = cache.informer(ConfigMap);
    cache.informer(ConfigMap, undefined, { app: (o: ConfigMapObject) => [o.metadata.labels?.app ?? ""] });
    client.kind("ConfigMap").page([cm("a", "ns", "1", { app: "web" })], "5");
    client.kind("ConfigMap").stream();
    cache.start(stop.signal);
    await cache.waitForSync();
    assert.deepEqual(names(informer.store.byIndex("app", "web")), ["a"]);
  });
});

describe("InformerCache: starting and syncing", () => {
  it("starts the informers it has, and later ones at once", async (t) => {
    const { cache, client, stop } = newCache(t, { namespace: "team" });
    cache.informer(ConfigMap);
    await flush();
    assert.equal(client.kind("ConfigMap").lists.length, 0, "nothing runs before start");
    cache.start(stop.signal);
    await flush();
    assert.equal(client.kind("ConfigMap").lists[0]?.namespace, "team");
    cache.informer(Namespace);
    await flush();
    assert.equal(client.kind("Namespace").lists.length, 1);
    assert.equal(client.kind("Namespace").lists[0]?.namespace, undefined);
  });

  it("removes an informer: stopped, its watch closed, forgotten, the others untouched", async (t) => {
    const { cache, client, stop } = newCache(t);
    const configMaps = cache.informer(ConfigMap);
    const namespaces = cache.informer(Namespace);
    client.kind("ConfigMap").page([cm("a")], "5");
    client.kind("ConfigMap").stream();
    client.kind("Namespace").page([], "5");
    client.kind("Namespace").stream();
    cache.start(stop.signal);
    await cache.waitForSync();
    await cache.remove(ConfigMap);
    assert.equal(configMaps.health().state, "stopped");
    assert.equal(client.kind("ConfigMap").watches.at(-1)?.signal?.aborted, true, "its watch was closed");
    assert.deepEqual(cache.informers(), [namespaces]);
    assert.equal(namespaces.health().state, "synced");
    assert.notEqual(cache.informer(ConfigMap), configMaps, "a later request starts a new one");
    await cache.remove(Secret); // none: nothing happens
  });

  it("never starts an informer removed before the cache started", async (t) => {
    const { cache, client, stop } = newCache(t);
    const removed = cache.informer(ConfigMap);
    await cache.remove(ConfigMap);
    cache.start(stop.signal);
    await removed.start(stop.signal);
    await flush();
    assert.equal(client.kind("ConfigMap").lists.length, 0);
    assert.deepEqual(cache.informers(), []);
  });

  it("is synced once every informer is", async (t) => {
    const { cache, client, stop } = newCache(t);
    cache.informer(ConfigMap);
    cache.informer(Namespace);
    cache.start(stop.signal);
    const synced = cache.waitForSync();
    client.kind("ConfigMap").page([], "1");
    client.kind("ConfigMap").stream();
    assert.equal(await isSettled(synced), false);
    assert.equal(cache.synced, false);
    client.kind("Namespace").page([], "1");
    client.kind("Namespace").stream();
    await synced;
    assert.equal(cache.synced, true);
  });

  it("applies the cache-wide transform, metrics and onError to every informer", async (t) => {
    const metricsFor: string[] = [];
    const errors: string[] = [];
    const { cache, client, stop } = newCache(t, {
      informer: {
        watch: { initialState: "list" },
        transform: (o) => ({ ...o, metadata: { ...o.metadata, uid: "t" } }),
      },
      metrics: (type) => {
        metricsFor.push(type.kind);
        return {};
      },
      onError: (_err, context) => errors.push(context),
    });
    const informer = cache.informer(ConfigMap);
    cache.informer(Secret);
    client.kind("ConfigMap").page([withManagedFields(cm("a"))], "1");
    client.kind("ConfigMap").stream();
    client.kind("Secret").failList(new Error("boom"));
    cache.start(stop.signal);
    await informer.waitForSync();
    assert.equal(informer.store.get("ns/a")?.metadata.uid, "t");
    assert.ok(
      informer.store.get("ns/a")?.metadata.managedFields,
      "the cache's transform replaces the default",
    );
    assert.deepEqual(metricsFor, ["ConfigMap", "Secret"]);
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? "", /watch of Secret failed/);
  });
});

describe("InformerCache.reader", () => {
  it("starts, reports and waits for an informer nobody declared", async (t) => {
    const { cache, client, lazy, stop } = newCache(t, { namespace: "team" });
    cache.start(stop.signal);
    const reading = cache.reader(ConfigMap);
    assert.equal(await isSettled(reading), false, "waits for the informer to sync");
    assert.deepEqual(lazy, [[ConfigMap, { namespace: "team" }]]);
    client.kind("ConfigMap").page([cm("a", "team", "1", { app: "web" }), cm("b", "team")], "5");
    client.kind("ConfigMap").stream();
    const reader = await reading;
    assert.equal(reader.get("a", "team")?.metadata.name, "a");
    assert.equal(reader.get("a"), undefined, "namespaced kinds are read by namespace and name");
    assert.deepEqual(names(reader.list()), ["a", "b"]);
    assert.deepEqual(names(reader.list({ labelSelector: "app=web" })), ["a"]);
    assert.deepEqual(names(reader.byIndex("namespace", "team")), ["a", "b"]);
    await cache.reader(ConfigMap);
    assert.equal(lazy.length, 1, "reported once");
  });

  it("does not report kinds that were declared", async (t) => {
    const { cache, client, lazy, stop } = newCache(t);
    cache.informer(Namespace);
    cache.start(stop.signal);
    client.kind("Namespace").page([ns("team")], "5");
    client.kind("Namespace").stream();
    const reader = await cache.reader(Namespace);
    assert.deepEqual(lazy, []);
    assert.equal(
      reader.get("team", "ignored")?.metadata.name,
      "team",
      "cluster-scoped kinds ignore a namespace",
    );
    assert.equal(reader.get("team")?.metadata.name, "team");
  });

  it("refuses, with failOnMissingInformer, a read that would start an informer, naming the kind and the fix", async (t) => {
    const { cache, client, lazy, stop } = newCache(t, { namespace: "team", failOnMissingInformer: true });
    cache.informer(Namespace);
    cache.start(stop.signal);
    await assert.rejects(cache.reader(ConfigMap), (err: unknown) => {
      assert.ok(err instanceof MissingInformerError);
      assert.equal(err.code, "KL_CACHE_MISSING_INFORMER");
      assert.equal(err.kind, "v1/ConfigMap");
      assert.match(err.message, /ConfigMap \(v1\) would start an informer in namespace team/);
      assert.match(err.message, /\.watches\(ConfigMap, map\) or \.owns\(ConfigMap\)/);
      assert.match(err.message, /read it through the client/);
      return true;
    });
    assert.equal(cache.existing(ConfigMap, { namespace: "team" }), undefined, "no informer was started");
    assert.deepEqual(lazy, []);
    client.kind("Namespace").page([ns("team")], "5");
    client.kind("Namespace").stream();
    const reader = await cache.reader(Namespace);
    assert.equal(reader.get("team")?.metadata.name, "team", "an informer made beforehand is read as ever");
  });

  it("rejects with an AbortError, never an unsynced reader, when its signal aborts", async (t) => {
    const { cache, stop } = newCache(t);
    cache.start(stop.signal);
    const gaveUp = new AbortController();
    const reading = cache.reader(ConfigMap, gaveUp.signal);
    assert.equal(await isSettled(reading), false);
    gaveUp.abort();
    await assert.rejects(reading, { name: "AbortError" });
  });
});
