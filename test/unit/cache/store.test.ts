import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConfigMapObject } from "../../../src/api/index.ts";
import { createStore, parseLabelSelector } from "../../../src/cache/index.ts";
import { cm, names } from "./support.ts";

const byDataKeys = (o: ConfigMapObject) => Object.keys(o.data ?? {});

describe("createStore", () => {
  it("keys objects by namespace/name, and cluster-scoped ones by name", () => {
    const { reader, writer } = createStore<ConfigMapObject>();
    writer.apply(cm("a", "ns1"));
    writer.apply(cm("a", "ns2"));
    writer.apply(cm("global", ""));
    assert.deepEqual(reader.keys().sort(), ["global", "ns1/a", "ns2/a"]);
    assert.equal(reader.size, 3);
    assert.equal(reader.get("ns2/a")?.metadata.namespace, "ns2");
    assert.equal(reader.get("global")?.metadata.name, "global");
    assert.equal(reader.get("a"), undefined);
  });

  it("apply returns the previous version, or undefined for a new object", () => {
    const { reader, writer } = createStore<ConfigMapObject>();
    assert.equal(writer.apply(cm("a", "ns", "1")), undefined);
    assert.equal(writer.apply(cm("a", "ns", "2"))?.metadata.resourceVersion, "1");
    assert.equal(reader.get("ns/a")?.metadata.resourceVersion, "2");
    assert.equal(reader.size, 1);
  });

  it("delete returns what was stored, or undefined when nothing was", () => {
    const { reader, writer } = createStore<ConfigMapObject>();
    writer.apply(cm("a", "ns", "5"));
    assert.equal(writer.delete(cm("a", "ns", "6"))?.metadata.resourceVersion, "5");
    assert.equal(writer.delete(cm("a", "ns")), undefined);
    assert.equal(reader.size, 0);
  });

  it("indexes objects by namespace", () => {
    const { reader, writer } = createStore<ConfigMapObject>();
    for (const [name, ns] of [
      ["a", "ns1"],
      ["b", "ns1"],
      ["c", "ns2"],
      ["d", ""],
    ] as const) {
      writer.apply(cm(name, ns));
    }
    assert.deepEqual(names(reader.list({ namespace: "ns1" })), ["a", "b"]);
    assert.deepEqual(names(reader.list({ namespace: "ns2" })), ["c"]);
    assert.deepEqual(names(reader.byIndex("namespace", "")), ["d"]);
    assert.deepEqual(names(reader.list({ namespace: "none" })), []);
    assert.deepEqual(names(reader.list()), ["a", "b", "c", "d"]);
  });

  it("keeps the namespace index right when objects are deleted", () => {
    const { reader, writer } = createStore<ConfigMapObject>();
    writer.apply(cm("a", "ns1"));
    writer.apply(cm("b", "ns1"));
    writer.delete(cm("a", "ns1"));
    assert.deepEqual(names(reader.list({ namespace: "ns1" })), ["b"]);
  });

  it("filters lists by label selector, as text or parsed", () => {
    const { reader, writer } = createStore<ConfigMapObject>();
    writer.apply(cm("web", "ns1", "1", { app: "web" }));
    writer.apply(cm("db", "ns1", "1", { app: "db" }));
    writer.apply(cm("web2", "ns2", "1", { app: "web" }));
    writer.apply(cm("bare", "ns1"));
    assert.deepEqual(names(reader.list({ labelSelector: "app=web" })), ["web", "web2"]);
    assert.deepEqual(names(reader.list({ namespace: "ns1", labelSelector: "app=web" })), ["web"]);
    assert.deepEqual(names(reader.list({ labelSelector: parseLabelSelector("app!=web") })), ["bare", "db"]);
    assert.deepEqual(names(reader.list({ labelSelector: "" })), ["bare", "db", "web", "web2"]);
  });

  it("maintains custom indexes through apply, update and delete", () => {
    const { reader, writer } = createStore<ConfigMapObject>({ keys: byDataKeys });
    writer.apply(cm("a", "ns", "1", undefined, { x: "1", y: "1" }));
    writer.apply(cm("b", "ns", "1", undefined, { y: "1" }));
    assert.deepEqual(names(reader.byIndex("keys", "x")), ["a"]);
    assert.deepEqual(names(reader.byIndex("keys", "y")), ["a", "b"]);
    writer.apply(cm("a", "ns", "2", undefined, { z: "1" }));
    assert.deepEqual(names(reader.byIndex("keys", "x")), [], "old index values are dropped on update");
    assert.deepEqual(names(reader.byIndex("keys", "y")), ["b"]);
    assert.deepEqual(names(reader.byIndex("keys", "z")), ["a"]);
    writer.delete(cm("b", "ns"));
    assert.deepEqual(names(reader.byIndex("keys", "y")), []);
  });

  it("hands out the stored version from every index, and forgets an emptied namespace", () => {
    const { reader, writer } = createStore<ConfigMapObject>({ keys: byDataKeys });
    writer.apply(cm("a", "ns", "1", undefined, { x: "1" }));
    const updated = cm("a", "ns", "2", undefined, { x: "1" });
    writer.apply(updated);
    assert.equal(reader.byIndex("keys", "x")[0], updated);
    assert.equal(reader.list({ namespace: "ns" })[0], updated);
    assert.equal(reader.get("ns/a"), updated);
    writer.delete(updated);
    assert.deepEqual([reader.size, reader.keys(), reader.list()], [0, [], []]);
    writer.apply(cm("b", "ns"));
    assert.deepEqual(reader.keys(), ["ns/b"]);
  });

  it("returns nothing for an unknown index", () => {
    const { reader, writer } = createStore<ConfigMapObject>();
    writer.apply(cm("a"));
    assert.deepEqual(reader.byIndex("nope", "a"), []);
  });

  it("addIndexer indexes the objects already stored, and later ones", () => {
    const { reader, writer } = createStore<ConfigMapObject>();
    writer.apply(cm("a", "ns", "1", undefined, { x: "1" }));
    writer.apply(cm("b", "ns", "1", undefined, { x: "1", y: "1" }));
    writer.addIndexer("keys", byDataKeys);
    assert.deepEqual(names(reader.byIndex("keys", "x")), ["a", "b"]);
    writer.apply(cm("c", "ns", "1", undefined, { y: "1" }));
    assert.deepEqual(names(reader.byIndex("keys", "y")), ["b", "c"]);
  });

  it("addIndexer keeps an index that already exists under that name", () => {
    const { reader, writer } = createStore<ConfigMapObject>({ keys: byDataKeys });
    writer.apply(cm("a", "ns", "1", undefined, { x: "1" }));
    writer.addIndexer("keys", () => ["other"]);
    assert.deepEqual(names(reader.byIndex("keys", "x")), ["a"]);
    assert.deepEqual(reader.byIndex("keys", "other"), []);
  });

  it("replace swaps the content, returns the removed objects and rebuilds the indexes", () => {
    const { reader, writer } = createStore<ConfigMapObject>({ keys: byDataKeys });
    writer.apply(cm("a", "ns1", "1", undefined, { x: "1" }));
    writer.apply(cm("b", "ns1", "1", undefined, { x: "1" }));
    writer.apply(cm("c", "ns2", "1", undefined, { y: "1" }));
    const removed = writer.replace([cm("b", "ns1", "2", undefined, { z: "1" }), cm("d", "ns3")]);
    assert.deepEqual(names(removed), ["a", "c"]);
    assert.deepEqual(reader.keys().sort(), ["ns1/b", "ns3/d"]);
    assert.equal(reader.get("ns1/b")?.metadata.resourceVersion, "2");
    assert.deepEqual(reader.byIndex("keys", "x"), []);
    assert.deepEqual(reader.byIndex("keys", "y"), []);
    assert.deepEqual(names(reader.byIndex("keys", "z")), ["b"]);
    assert.deepEqual(names(reader.list({ namespace: "ns2" })), []);
    assert.deepEqual(names(reader.list({ namespace: "ns3" })), ["d"]);
  });

  it("stores an object its indexer throws on outside that index, through apply, replace and delete", () => {
    const failures: string[] = [];
    const byRef = (o: ConfigMapObject) => [(o.data as { ref: string }).ref.toLowerCase()];
    const { reader, writer } = createStore<ConfigMapObject>({ byRef }, (err, index, key) =>
      failures.push(`${index} ${key} ${(err as Error).name}`),
    );
    writer.apply(cm("good", "ns", "1", undefined, { ref: "x" }));
    writer.apply(cm("bad"));
    writer.replace([cm("good", "ns", "2", undefined, { ref: "y" }), cm("bad", "ns", "2")]);
    writer.apply(cm("bad", "ns", "3", undefined, { ref: "y" }));
    assert.deepEqual(reader.keys().sort(), ["ns/bad", "ns/good"]);
    assert.deepEqual(names(reader.byIndex("byRef", "y")), ["bad", "good"]);
    assert.deepEqual(reader.byIndex("byRef", "x"), []);
    writer.delete(cm("bad"));
    assert.deepEqual(names(reader.byIndex("byRef", "y")), ["good"]);
    assert.deepEqual(
      failures,
      ["byRef ns/bad TypeError", "byRef ns/bad TypeError"],
      "reported when indexed, not when unindexed",
    );
  });
});
