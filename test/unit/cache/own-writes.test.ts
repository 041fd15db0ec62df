/** The watermarks of own writes: how resourceVersions compare, and that they stay few. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { OwnWrites } from "../../../src/cache/index.ts";
import { cm, newCache } from "./support.ts";

/** A cache whose ConfigMap informer listed `objects` (at resourceVersion 100) and synced. */
async function syncedCache(t: Parameters<typeof newCache>[0], objects = [cm("a", "ns", "10")]) {
  const { client, clock, cache, stop } = newCache(t);
  client.kind("ConfigMap").page(objects, "100");
  client.kind("ConfigMap").stream();
  cache.informer(ConfigMap);
  cache.start(stop.signal);
  await cache.waitForSync();
  return { clock, cache, signal: stop.signal };
}

const write = (name: string, resourceVersion: string) => ({
  name,
  namespace: "ns",
  object: cm(name, "ns", resourceVersion),
  deleted: false,
});

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
});
