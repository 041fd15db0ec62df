/** The watermarks of own writes: how resourceVersions compare, and that they stay few. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { OwnWrites, type OwnWriteWait } from "../../../src/cache/index.ts";
import { flush } from "../watch/support.ts";
import { cm, newCache } from "./support.ts";

/**
 * A cache whose ConfigMap informer listed `objects` (at resourceVersion 100) and synced, with the
 * watch stream that follows the list.
 */
async function syncedCache(t: Parameters<typeof newCache>[0], objects = [cm("a", "ns", "10")]) {
  const { client, clock, cache, stop } = newCache(t);
  const configMaps = client.kind("ConfigMap");
  configMaps.page(objects, "100");
  const stream = configMaps.stream();
  cache.informer(ConfigMap);
  cache.start(stop.signal);
  await cache.waitForSync();
  return { clock, cache, signal: stop.signal, configMaps, stream };
}

const write = (name: string, resourceVersion: string) => ({
  name,
  namespace: "ns",
  object: cm(name, "ns", resourceVersion),
  deleted: false,
});

/** A ConfigMap of one incarnation (`uid`). */
const incarnation = (name: string, resourceVersion: string, uid: string): ConfigMapObject => {
  const obj = cm(name, "ns", resourceVersion);
  return { ...obj, metadata: { ...obj.metadata, uid } };
};

/** How a wait ended once everything pending ran (no time passes on any clock), or "waiting". */
async function outcome(
  wait: Promise<OwnWriteWait | undefined>,
): Promise<OwnWriteWait | undefined | "waiting"> {
  await flush();
  return Promise.race([wait, Promise.resolve("waiting" as const)]);
}

describe("OwnWrites", () => {
  it("compares resourceVersions as integers: a cached 10 is newer than a written 9", async (t) => {
    const { cache, clock, signal } = await syncedCache(t);
    const own = new OwnWrites(cache, { clock });
    own.record("ns/a", ConfigMap, write("a", "9"));
    assert.equal(await own.caughtUp("ns/a", signal), undefined, "nothing to wait for");
  });

  it("does not wait for a write whose resourceVersion is not a decimal integer", async (t) => {
    const { cache, clock, signal } = await syncedCache(t);
    const own = new OwnWrites(cache, { clock });
    own.record("ns/a", ConfigMap, write("a", "opaque-7"));
    assert.equal(own.size, 0);
    assert.equal(await own.caughtUp("ns/a", signal), undefined);
  });

  it("forgets the writes the cache already shows, so that keys never reconciled again do not pile up", async (t) => {
    const objects = Array.from({ length: 3000 }, (_, i) => cm(`o${i}`, "ns", "50"));
    const { cache, clock } = await syncedCache(t, objects);
    const own = new OwnWrites(cache, { clock });
    let largest = 0;
    for (let i = 0; i < 3000; i++) {
      own.record(`ns/o${i}`, ConfigMap, write(`o${i}`, "50"));
      largest = Math.max(largest, own.size);
    }
    assert.ok(largest <= 1024, `at most 1024 keys kept (kept ${largest})`);
  });

  it("forgets writes older than the wait's bound even when the cache never shows them", async (t) => {
    const { cache, clock } = await syncedCache(t);
    const own = new OwnWrites(cache, { clock, timeoutMs: 5_000 });
    for (let i = 0; i < 1024; i++) own.record(`ns/n${i}`, ConfigMap, write(`n${i}`, "200"));
    assert.equal(own.size, 1024);
    clock.advance(5_001);
    own.record("ns/last", ConfigMap, write("last", "200"));
    assert.equal(own.size, 1);
  });

  describe("an object someone else deleted after the write", () => {
    it("counts a delete at a newer resourceVersion as observed, without waiting for the bound", async (t) => {
      const { cache, clock, signal, stream } = await syncedCache(t);
      const own = new OwnWrites(cache, { clock });
      own.record("ns/a", ConfigMap, write("a", "200"));
      const waited = own.caughtUp("ns/a", signal);
      assert.equal(await outcome(waited), "waiting", "the cache still holds a@10");
      stream.send("DELETED", cm("a", "ns", "210"));
      assert.equal(await outcome(waited), "observed");
    });

    it("does not wait at all when the informer saw the write and the delete before the next reconcile", async (t) => {
      const { cache, clock, signal, stream } = await syncedCache(t);
      const own = new OwnWrites(cache, { clock });
      own.record("ns/a", ConfigMap, write("a", "200"));
      stream.send("MODIFIED", cm("a", "ns", "200")).send("DELETED", cm("a", "ns", "210"));
      await flush();
      assert.equal(await outcome(own.caughtUp("ns/a", signal)), undefined, "nothing left to wait for");
    });

    it("counts a relist without the object, at a resourceVersion past the write, as observed", async (t) => {
      // a: held at 10 and written at 200, then gone from the relist (a delete of its last known
      // state, client-go's DeletedFinalStateUnknown); b: created at 201 and deleted before the
      // informer ever saw it (no event for it at all).
      const { cache, clock, signal, configMaps, stream } = await syncedCache(t);
      const own = new OwnWrites(cache, { clock });
      own.record("ns/a", ConfigMap, write("a", "200"));
      own.record("ns/a", ConfigMap, write("b", "201"));
      const waited = own.caughtUp("ns/a", signal);
      assert.equal(await outcome(waited), "waiting");
      configMaps.page([], "250");
      configMaps.stream();
      stream.send("ERROR", { kind: "Status", code: 410, reason: "Expired", message: "too old" });
      assert.equal(await outcome(waited), "observed");
    });

    it("does not count a relist that is older than the write", async (t) => {
      const { cache, clock, signal, configMaps, stream } = await syncedCache(t);
      const own = new OwnWrites(cache, { clock, timeoutMs: 5_000 });
      own.record("ns/a", ConfigMap, write("b", "300"));
      const waited = own.caughtUp("ns/a", signal);
      configMaps.page([], "250");
      configMaps.stream();
      stream.send("ERROR", { kind: "Status", code: 410, reason: "Expired", message: "too old" });
      assert.equal(await outcome(waited), "waiting", "a list at 250 cannot show a write at 300");
      clock.advance(5_000);
      assert.equal(await outcome(waited), "timeout");
    });

    it("does not count a stale delete, older than the write: the write's own event is still to come", async (t) => {
      // The operator created a anew (uid new, at 200) after someone deleted the old one (at 150),
      // which the lagging informer still holds.
      const { cache, clock, signal, stream } = await syncedCache(t, [incarnation("a", "10", "old")]);
      const own = new OwnWrites(cache, { clock });
      own.record("ns/a", ConfigMap, { ...write("a", "200"), object: incarnation("a", "200", "new") });
      const waited = own.caughtUp("ns/a", signal);
      stream.send("DELETED", incarnation("a", "150", "old"));
      assert.equal(await outcome(waited), "waiting", "the delete at 150 is older than the write");
      stream.send("ADDED", incarnation("a", "200", "new"));
      assert.equal(await outcome(waited), "observed");
    });
  });
});
