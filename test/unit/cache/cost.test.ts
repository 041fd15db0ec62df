import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConfigMapObject } from "../../../src/api/index.ts";
import { CostedWriter, createStore, estimateBytes } from "../../../src/cache/index.ts";
import { flush } from "../watch/support.ts";
import { cm, startInformer, withManagedFields } from "./support.ts";

const long = (c: string) => c.repeat(100);

describe("estimateBytes", () => {
  it("counts a unique string's header and characters, rounded to 8, and no short string JSON.parse shares", () => {
    const base = estimateBytes(cm("a", "ns", "1", {}, { x: "short" }), false);
    assert.equal(estimateBytes(cm("a", "ns", "1", {}, { x: long("v") }), false) - base, 16 + 104);
    assert.equal(estimateBytes(cm("a", "ns", "1", {}, { x: "", y: "1" }), false) - base, 8, "one more slot");
  });

  it("counts strings the default transform shares only when it is not in force, and unique fields always", () => {
    const shared = cm("a", "ns", "1", { app: long("w") });
    const bare = cm("a", "ns", "1", { app: "w" });
    assert.equal(estimateBytes(shared, true), estimateBytes(bare, true), "one shared copy: only its slot");
    assert.equal(estimateBytes(shared, false) - estimateBytes(bare, false), 16 + 104);
    const withUid = (uid: string) => ({ ...bare, metadata: { ...bare.metadata, uid } });
    assert.equal(
      estimateBytes(withUid(long("u")), true) - estimateBytes(withUid(""), true),
      16 + 104,
      "a uid is never shared",
    );
  });

  it("counts an owner's uid as shared under the default transform, the object's own never", () => {
    const owned = (uid: string, ownerUid: string) => {
      const base = cm("a");
      const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "o", uid: ownerUid }];
      return { ...base, metadata: { ...base.metadata, uid, ownerReferences } };
    };
    assert.equal(estimateBytes(owned("", long("o")), true), estimateBytes(owned("", ""), true));
    assert.equal(estimateBytes(owned(long("u"), ""), true) - estimateBytes(owned("", ""), true), 16 + 104);
  });

  it("counts what managedFields hold, an empty object's spare slots and a non-integer number", () => {
    const plain = cm("a");
    const managed = withManagedFields(plain); // [{ manager, operation, fieldsV1: {} }]
    const entry = 24 + 3 * 8 + 56; // an object of three properties, one of them an empty object
    const array = 32 + 16 + 8;
    assert.equal(estimateBytes(managed, false) - estimateBytes(plain, false), 8 + array + entry);
    const number = (n: number) => ({ ...plain, data: undefined, spec: { n } });
    assert.equal(estimateBytes(number(1.5), false) - estimateBytes(number(2), false), 16);
  });
});

describe("CostedWriter", () => {
  it("keeps the estimated bytes of what the store holds through applies, updates, deletes and replaces", () => {
    const store = createStore<ConfigMapObject>();
    const told: number[] = [];
    const writer = new CostedWriter(
      store.writer,
      (o) => estimateBytes(o, false),
      (b) => told.push(b),
    );
    const size = (o: ConfigMapObject) => estimateBytes(o, false);
    const a = cm("a");
    const b = cm("b", "ns", "1", {}, { x: long("b") });
    writer.apply(a);
    writer.apply(b);
    assert.equal(writer.bytes, size(a) + size(b));
    const bigger = cm("a", "ns", "2", {}, { x: long("a"), y: long("c") });
    writer.apply(bigger);
    assert.equal(writer.bytes, size(bigger) + size(b), "an update replaces its predecessor's size");
    writer.delete(cm("b"));
    writer.delete(cm("gone"));
    assert.equal(writer.bytes, size(bigger), "a delete removes what was stored, of whatever size");
    const fresh = [cm("c"), cm("d")];
    writer.replace(fresh);
    assert.equal(writer.bytes, size(fresh[0] as ConfigMapObject) + size(fresh[1] as ConfigMapObject));
    assert.deepEqual(store.reader.keys().sort(), ["ns/c", "ns/d"]);
    assert.equal(told.length, 5, "told after each write that changed the store (not the delete of nothing)");
    assert.equal(told.at(-1), writer.bytes);
  });
});

describe("Informer.bytes", () => {
  it("follows the watch, counts shared strings once under the default transform, and reports 0 once stopped", async (t) => {
    const reported: number[] = [];
    const { client, informer, start } = startInformer(t, {
      metrics: { storeBytes: (b) => reported.push(b) },
    });
    const web = { app: long("w") };
    client.page([withManagedFields(cm("a", "ns", "1", web)), cm("b", "ns", "1", web)], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    const stored = () => informer.store.list().reduce((sum, o) => sum + estimateBytes(o, true), 0);
    assert.ok(informer.bytes > 0);
    assert.equal(informer.bytes, stored());
    assert.equal(informer.store.get("ns/a")?.metadata.managedFields, undefined, "measured as stored");
    stream.send("DELETED", cm("b", "ns", "2", web));
    await flush();
    assert.equal(informer.bytes, stored());
    assert.equal(reported.at(-1), informer.bytes);
    await informer.stop();
    assert.equal(reported.at(-1), 0, "a stopped informer's store is no cache's any more");
  });

  it("counts every string when a custom transform replaces the default (nothing is shared)", async (t) => {
    const { client, informer, start } = startInformer(t, { transform: (o) => o });
    client.page([cm("a", "ns", "1", { app: long("w") })], "10");
    client.stream();
    void start();
    await informer.waitForSync();
    assert.equal(informer.bytes, estimateBytes(informer.store.get("ns/a") as ConfigMapObject, false));
  });
});
