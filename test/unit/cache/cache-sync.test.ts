import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, it } from "node:test";
import { ConfigMap, resourceType } from "../../../src/api/index.ts";
import { CacheSyncTimeoutError, InformerStoppedError } from "../../../src/cache/index.ts";
import { apiErrorFrom, KindNotFoundError } from "../../../src/client/index.ts";
import { flush, isSettled } from "../watch/support.ts";
import { cm, newCache } from "./support.ts";

const forbidden = apiErrorFrom(
  403,
  {
    code: 403,
    reason: "Forbidden",
    message:
      'configmaps is forbidden: User "system:serviceaccount:ops:op" cannot list resource "configmaps" in API group "" in the namespace "team"',
  },
  { method: "GET", path: "/api/v1/namespaces/team/configmaps" },
);

describe("InformerCache: sync timeout", () => {
  it("rejects reader() after syncTimeoutMs, naming the kind, the refused verb and resource, and the fix", async (t) => {
    const { cache, client, clock, stop } = newCache(t, { namespace: "team", syncTimeoutMs: 30_000 });
    client.kind("ConfigMap").failList(forbidden);
    cache.start(stop.signal);
    const reading = cache.reader(ConfigMap);
    clock.advance(29_999);
    assert.equal(await isSettled(reading), false);
    clock.advance(1);
    await assert.rejects(reading, (err: unknown) => {
      assert.ok(err instanceof CacheSyncTimeoutError);
      assert.equal(err.code, "KL_CACHE_SYNC_TIMEOUT");
      assert.equal(err.cause, forbidden);
      assert.match(err.message, /^the cache of ConfigMap \(v1\) in namespace team did not sync within 30 s/);
      assert.match(err.message, /cannot list resource "configmaps"/);
      assert.match(
        err.message,
        /Grant the verbs list and watch on configmaps to the operator's ServiceAccount/,
      );
      assert.match(
        err.message,
        /declare the kind \(`\.owns\(\)` or `\.watches\(\)`.*`permissions`\), rerun `kubeloop generate`/,
      );
      return true;
    });
  });

  it("names a kind the server does not serve, and how to install it, when that kept it from syncing", async (t) => {
    const { cache, client, clock, stop } = newCache(t, { syncTimeoutMs: 30_000 });
    const Widget = resourceType("example.com/v1alpha1", "Widget", "widgets", true);
    const notServed = new KindNotFoundError(Widget.apiVersion, Widget.kind, {
      groupVersions: ["example.com/v1"],
      kindVersions: ["example.com/v1"],
    });
    client.kind("Widget").failList(notServed);
    cache.start(stop.signal);
    const reading = cache.reader(Widget);
    await flush();
    clock.advance(30_000);
    await assert.rejects(reading, (err: unknown) => {
      assert.ok(err instanceof CacheSyncTimeoutError);
      assert.match(
        err.message,
        /did not sync within 30 s: the API server does not serve Widget in example\.com\/v1alpha1/,
      );
      assert.match(err.message, /serves Widget in example\.com\/v1 but not in v1alpha1.*`kubeloop install`/);
      return true;
    });
  });

  it("rejects waitForSync after 2 minutes by default, saying a cache never started may be why", async (t) => {
    const { cache, clock } = newCache(t);
    cache.informer(ConfigMap);
    const waiting = cache.waitForSync();
    clock.advance(119_999);
    assert.equal(await isSettled(waiting), false);
    clock.advance(1);
    await assert.rejects(
      waiting,
      /did not sync within 120 s: no list or watch failed.*cache was never started/,
    );
  });

  it("rejects waitForSync with an AbortError when its signal aborts first", async (t) => {
    const { cache, stop } = newCache(t);
    cache.informer(ConfigMap);
    cache.start(stop.signal);
    const waiting = cache.waitForSync(stop.signal);
    stop.abort();
    await assert.rejects(waiting, { name: "AbortError" });
    assert.equal(cache.synced, false);
  });

  it("reports every informer's health", async (t) => {
    const { cache, client, stop } = newCache(t);
    cache.informer(ConfigMap);
    client.kind("ConfigMap").page([cm("a")], "1");
    client.kind("ConfigMap").stream();
    cache.start(stop.signal);
    await cache.waitForSync();
    assert.deepEqual(
      cache.health().map((h) => [h.kind, h.state]),
      [["v1/ConfigMap", "synced"]],
    );
  });
});

describe("InformerCache: an informer stopped before it synced", () => {
  it("tells its waiters at once, and a cache that removed it waits for the others only", async (t) => {
    const { cache, client, stop } = newCache(t);
    const configMaps = client.kind("ConfigMap");
    const removed = cache.informer(ConfigMap, { namespace: "gone" });
    const kept = cache.informer(ConfigMap, { namespace: "kept" });
    cache.start(stop.signal);
    const waiting = removed.waitForSync();
    const cacheSynced = cache.waitForSync();
    await cache.remove(ConfigMap, { namespace: "gone" });
    await assert.rejects(waiting, (err: unknown) => {
      assert.ok(err instanceof InformerStoppedError);
      assert.equal(err.code, "KL_INFORMER_STOPPED");
      assert.match(
        err.message,
        /^the informer of ConfigMap \(v1\) in namespace gone stopped before it synced/,
      );
      return true;
    });
    await assert.rejects(removed.waitForSync(), InformerStoppedError, "and so does a wait begun later");
    assert.equal(await isSettled(cacheSynced), false, "the kept informer has not listed yet");
    configMaps.page([cm("a", "kept")], "3");
    configMaps.stream();
    await cacheSynced;
    assert.equal(kept.synced, true);
  });
});

describe("InformerCache: one shutdown signal for many informers", () => {
  it("starts and waits for 20 informers on one signal with one listener on it, and no warning", async (t) => {
    const warnings: string[] = [];
    const record = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", record);
    t.after(() => process.off("warning", record));
    const { cache, client, stop } = newCache(t);
    const kinds = Array.from({ length: 20 }, (_, i) => resourceType("v1", `Kind${i}`, `kind${i}s`, true));
    for (const kind of kinds.slice(0, 15)) cache.informer(kind);
    cache.start(stop.signal);
    const synced = cache.waitForSync(stop.signal);
    const readers = kinds.slice(15).map((kind) => cache.reader(kind, stop.signal));
    await flush();
    assert.equal(getEventListeners(stop.signal, "abort").length, 1);
    for (const kind of kinds) {
      client.kind(kind.kind).page([], "1");
      client.kind(kind.kind).stream();
    }
    await Promise.all([synced, ...readers]);
    await flush();
    assert.equal(
      getEventListeners(stop.signal, "abort").length,
      1,
      "the waits detached; the informers follow",
    );
    const stopped = Promise.all(cache.informers().map((i) => i.start(stop.signal)));
    stop.abort();
    await stopped;
    assert.deepEqual(warnings, []);
  });
});
