import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { describe, it } from "node:test";
import type { ConfigMapObject } from "../../../src/api/index.ts";
import { ConfigMap, Secret } from "../../../src/api/index.ts";
import { Informer, type InformerOptions, InvalidRelistOptionsError } from "../../../src/cache/index.ts";
import { catchUpLimitMs, quietMs } from "../../../src/cache/internal/relist.ts";
import { shardSelector } from "../../../src/sharding/index.ts";
import { lowHalf, uidIn } from "../sharding/support.ts";
import { FakeWatchClient, flush } from "../watch/support.ts";
import { cm, newCache, recording, startInformer } from "./support.ts";

const periodMs = 60_000;

/** A ConfigMap with a uid. */
function withUid(obj: ConfigMapObject, uid: string): ConfigMapObject {
  return { ...obj, metadata: { ...obj.metadata, uid } };
}

/**
 * An informer with a relist every minute (no jitter) that synced on `initial` (list at resourceVersion
 * "10") and watches on `stream`; `log` records what handlers hear after the sync, `diverged` what
 * the relists counted.
 */
async function synced(
  t: TestContext,
  initial: ConfigMapObject[],
  options: InformerOptions<ConfigMapObject> = {},
) {
  const diverged: string[] = [];
  const told: string[][] = [];
  const started = startInformer(t, {
    relist: { periodMs, jitter: 0 },
    // Time jumps by whole periods here without the bookmarks a live watch gets every minute: the
    // watch must not take the jumps for gaps (watcher-gap.test.ts covers those).
    watch: { gapMs: Number.POSITIVE_INFINITY },
    metrics: { diverged: (change) => diverged.push(change) },
    onDiverged: (found) => told.push(found.map((f) => `${f.change} ${f.key}`)),
    ...options,
  });
  const { client, clock, informer, start } = started;
  client.page(initial, "10");
  const stream = client.stream();
  void start();
  await informer.waitForSync();
  const log: string[] = [];
  informer.addHandler(recording(log));
  log.length = 0;
  let listedAt = "10";
  /** Lets the next relist list `items` at `resourceVersion`; it compares once `compare` runs. */
  const relistReturns = async (items: ConfigMapObject[], resourceVersion: string) => {
    client.page(items, resourceVersion);
    listedAt = resourceVersion;
    clock.advance(periodMs);
    await flush();
  };
  /** The watch catches up to the last list (a bookmark at its resourceVersion): the relist compares. */
  const compare = async (resourceVersion = listedAt) => {
    stream.bookmark(resourceVersion);
    await flush();
  };
  return { ...started, stream, log, diverged, told, relistReturns, compare };
}

const storedVersions = (keys: string[], get: (k: string) => ConfigMapObject | undefined) =>
  keys.map((k) => `${k}@${get(k)?.metadata.resourceVersion}`);

describe("Informer: periodic relist", () => {
  it("heals a dropped add at the next relist, tells the handlers and counts it", async (t) => {
    const h = await synced(t, [cm("a")]);
    await h.relistReturns([cm("a"), cm("b", "ns", "7")], "12");
    await h.compare();
    assert.deepEqual(h.log, ["add b@7"]);
    assert.deepEqual(h.diverged, ["added"]);
    assert.deepEqual(h.told, [["added ns/b"]], "onDiverged hears of the relist once, by key");
    assert.deepEqual(h.informer.store.keys().sort(), ["ns/a", "ns/b"]);
  });

  it("heals a dropped update at the next relist, tells the handlers and counts it", async (t) => {
    const h = await synced(t, [cm("a"), cm("b")]);
    await h.relistReturns([cm("a", "ns", "11"), cm("b")], "12");
    await h.compare();
    assert.deepEqual(h.log, ["update a@1→a@11"]);
    assert.deepEqual(h.diverged, ["updated"]);
    assert.equal(h.informer.store.get("ns/a")?.metadata.resourceVersion, "11");
  });

  it("heals a dropped delete at the next relist, tells the handlers and counts it", async (t) => {
    const h = await synced(t, [cm("a"), cm("b")]);
    await h.relistReturns([cm("a")], "12");
    await h.compare();
    assert.deepEqual(h.log, ["delete b@1"]);
    assert.deepEqual(h.diverged, ["deleted"]);
    assert.deepEqual(h.informer.store.keys(), ["ns/a"]);
    assert.equal(h.informer.tombstone("ns/b")?.metadata.name, "b", "the deletion can be attributed");
  });

  it("replaces an object deleted and created again under the same name (another uid): a delete, then an add", async (t) => {
    const h = await synced(t, [withUid(cm("a"), "u1")]);
    await h.relistReturns([withUid(cm("a", "ns", "11"), "u2")], "12");
    await h.compare();
    assert.deepEqual(h.log, ["delete a@1", "add a@11"]);
    assert.deepEqual(h.diverged, ["deleted", "added"]);
    assert.equal(h.informer.store.get("ns/a")?.metadata.uid, "u2");
  });

  it("relists a shard only: the selector is sent, and objects of other shards are neither added nor counted", async (t) => {
    const mine = withUid(cm("a"), uidIn([lowHalf], true));
    const other = withUid(cm("b", "ns", "7"), uidIn([lowHalf], false));
    const outside: string[] = [];
    const h = await synced(t, [mine], {
      shard: { key: "uid", ranges: [lowHalf] },
      metrics: { diverged: () => assert.fail("nothing diverged"), outsideShard: () => outside.push("b") },
    });
    await h.relistReturns([mine, other], "12");
    await h.compare();
    assert.deepEqual(h.log, []);
    assert.deepEqual(h.informer.store.keys(), ["ns/a"]);
    assert.equal(h.client.lists.at(-1)?.shardSelector, shardSelector("uid", [lowHalf]));
    assert.equal(h.informer.scope.shard?.key, "uid");
    assert.deepEqual(outside, ["b"], "reported as the watch reports it");
  });

  it("counts nothing and tells the handlers nothing on a cache that missed nothing", async (t) => {
    const h = await synced(t, [cm("a"), cm("b", "ns", "5")]);
    for (let round = 0; round < 3; round++) {
      await h.relistReturns([cm("a"), cm("b", "ns", "5")], `${12 + round}`);
      await h.compare();
    }
    assert.equal(h.client.lists.length, 4, "the first list and three relists");
    assert.deepEqual(h.log, []);
    assert.deepEqual(h.diverged, []);
    assert.deepEqual(h.told, [], "onDiverged is not told of a relist that found nothing");
  });

  it("lists in pages of 500 with a consistent read (no resourceVersion) in the informer's scope", async (t) => {
    const h = await synced(t, [], { namespace: "ns", labelSelector: "app=web" });
    h.client.page([cm("a")], "12", "next");
    await h.relistReturns([cm("b")], "12");
    await h.compare();
    const relists = h.client.lists.slice(1).map(({ signal: _, ...call }) => call);
    const scope = {
      namespace: "ns",
      labelSelector: "app=web",
      fieldSelector: undefined,
      metadataOnly: undefined,
      shardSelector: undefined,
    };
    assert.deepEqual(relists, [
      { ...scope, limit: 500, continue: undefined },
      { ...scope, limit: 500, continue: "next" },
    ]);
    assert.deepEqual(h.log.sort(), ["add a@1", "add b@1"]);
  });

  it("does not roll back an object the watch updated after the list, nor resurrect one it deleted, nor drop one it added", async (t) => {
    const h = await synced(t, [cm("a"), cm("b")]);
    // Listed at resourceVersion 12: a@5, b@6; meanwhile the watch delivers them and moves on past 12.
    await h.relistReturns([cm("a", "ns", "5"), cm("b", "ns", "6")], "12");
    h.stream.send("MODIFIED", cm("a", "ns", "5")).send("MODIFIED", cm("b", "ns", "6"));
    h.stream.send("MODIFIED", cm("a", "ns", "13")).send("DELETED", cm("b", "ns", "14"));
    h.stream.send("ADDED", cm("c", "ns", "15"));
    await flush();
    await h.compare();
    assert.deepEqual(
      h.log,
      ["update a@1→a@5", "update b@1→b@6", "update a@5→a@13", "delete b@6", "add c@15"],
      "only the watch's own events",
    );
    assert.deepEqual(h.diverged, []);
    assert.deepEqual(
      storedVersions(["ns/a", "ns/c"], (k) => h.informer.store.get(k)),
      ["ns/a@13", "ns/c@15"],
    );
    assert.equal(h.informer.store.get("ns/b"), undefined);
  });

  it("does not count an event the watch delivers after the list returned but wrote before it", async (t) => {
    const h = await synced(t, [cm("a")]);
    await h.relistReturns([cm("a", "ns", "11")], "12");
    h.stream.send("MODIFIED", cm("a", "ns", "11"));
    await flush();
    await h.compare();
    assert.deepEqual(h.log, ["update a@1→a@11"]);
    assert.deepEqual(h.diverged, []);
  });

  it("counts nothing while the watch lags behind the list: events the list already reflects land before the comparison", async (t) => {
    const h = await synced(t, [cm("a"), cm("b")]);
    // Listed at 20: a@15 and c@16 written, b deleted at 17; the watch delivers them, a few seconds apart.
    await h.relistReturns([cm("a", "ns", "15"), cm("c", "ns", "16")], "20");
    const lagging = [
      () => h.stream.send("MODIFIED", cm("a", "ns", "15")),
      () => h.stream.send("ADDED", cm("c", "ns", "16")),
      () => h.stream.send("DELETED", cm("b", "ns", "17")),
      () => h.stream.bookmark("20"),
    ];
    for (const deliver of lagging) {
      h.clock.advance(quietMs - 1);
      await flush();
      assert.deepEqual(h.diverged, [], "nothing judged before the watch reached the list");
      deliver();
      await flush();
    }
    assert.deepEqual(h.log, ["update a@1→a@15", "add c@16", "delete b@1"], "only the watch's own events");
    assert.deepEqual([h.diverged, h.told], [[], []]);
  });

  it("judges the whole list once the watch went quiet: it delivered nothing for 5 s", async (t) => {
    const h = await synced(t, [cm("a"), cm("b")]);
    await h.relistReturns([cm("a", "ns", "15")], "20");
    h.clock.advance(quietMs - 1);
    await flush();
    assert.deepEqual(h.diverged, []);
    h.clock.advance(1);
    await flush();
    assert.deepEqual(h.log, ["update a@1→a@15", "delete b@1"]);
    assert.deepEqual(h.diverged, ["updated", "deleted"]);
  });

  it("judges, when the watch keeps delivering but never reaches the list, only what it has passed", async (t) => {
    const h = await synced(t, [cm("a"), cm("b"), cm("c")]);
    // The watch missed a@11; b@500, d@600 and c's deletion may still be on their way to it.
    await h.relistReturns([cm("a", "ns", "11"), cm("b", "ns", "500"), cm("d", "ns", "600")], "1000");
    for (let rv = 12; h.diverged.length === 0; rv++) {
      assert.ok(rv < 12 + catchUpLimitMs / (quietMs - 1) + 2, "compared by the limit");
      h.clock.advance(quietMs - 1);
      h.stream.bookmark(String(rv));
      await flush();
    }
    assert.deepEqual(h.log, ["update a@1→a@11"]);
    assert.deepEqual(h.diverged, ["updated"]);
    assert.deepEqual(
      storedVersions(["ns/b", "ns/c"], (k) => h.informer.store.get(k)),
      ["ns/b@1", "ns/c@1"],
    );
  });

  it("relists every period ± jitter from the first sync on", async (t) => {
    const h = await synced(t, [], { relist: { periodMs, jitter: 0.1 } });
    for (let round = 1; round <= 3; round++) {
      h.client.page([], `${10 + round}`);
      h.clock.advance(0.9 * periodMs - 1);
      await flush();
      assert.equal(h.client.lists.length, round, `relist ${round} not before 0.9 periods`);
      h.clock.advance(0.2 * periodMs + 1);
      await flush();
      assert.equal(h.client.lists.length, round + 1, `relist ${round} by 1.1 periods`);
      await h.compare(`${10 + round}`); // The next period counts from the end of this relist.
    }
  });

  it("relists every 4 min ± 10 % by default", async (t) => {
    const h = await synced(t, [], { relist: undefined });
    h.client.page([], "11");
    h.clock.advance(216_000 - 1);
    await flush();
    assert.equal(h.client.lists.length, 1);
    h.clock.advance(48_000 + 1);
    await flush();
    assert.equal(h.client.lists.length, 2);
  });

  for (const relist of [false, { periodMs: 0 }] as const) {
    it(`never relists with relist: ${JSON.stringify(relist)}`, async (t) => {
      const h = await synced(t, [cm("a")], { relist });
      h.clock.advance(100 * 3_600_000);
      await flush();
      assert.equal(h.client.lists.length, 1);
    });
  }

  it("reports a failed relist and retries it with backoff, not a period later", async (t) => {
    const h = await synced(t, [cm("a")]);
    h.client.failList(new Error("etcd timeout"));
    h.clock.advance(periodMs);
    await flush();
    assert.match(h.errors.at(-1)?.[1] ?? "", /^relist of ConfigMap failed; retrying in \d+ ms$/);
    h.client.page([cm("a"), cm("b")], "12");
    h.clock.advance(1_000);
    await flush();
    await h.compare("12");
    assert.deepEqual(h.log, ["add b@1"]);
  });

  it("rejects relist options out of range", () => {
    for (const relist of [{ periodMs: -1 }, { periodMs: Number.NaN }, { jitter: 1 }, { jitter: -0.1 }]) {
      assert.throws(
        () => new Informer(new FakeWatchClient(), ConfigMap, { relist }),
        InvalidRelistOptionsError,
      );
    }
  });
});

describe("InformerCache: relist options", () => {
  it("applies informer.relist to every informer, and relistByKind to its kind", async (t) => {
    const { cache, client, clock, stop } = newCache(t, {
      informer: { watch: { initialState: "list" }, relist: { periodMs, jitter: 0 } },
      relistByKind: { "v1/Secret": false },
    });
    for (const kind of ["ConfigMap", "Secret"]) {
      client.kind(kind).page([], "1");
      client.kind(kind).stream();
      client.kind(kind).page([], "2");
    }
    cache.informer(ConfigMap);
    cache.informer(Secret);
    cache.start(stop.signal);
    await cache.waitForSync();
    clock.advance(periodMs);
    await flush();
    assert.equal(client.kind("ConfigMap").lists.length, 2);
    assert.equal(client.kind("Secret").lists.length, 1);
  });
});
