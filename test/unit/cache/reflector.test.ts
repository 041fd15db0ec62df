import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConfigMapObject } from "../../../src/api/index.ts";
import { type Change, createStore, reflect, stripManagedFields } from "../../../src/cache/index.ts";
import type { WatchEvent } from "../../../src/watch/index.ts";
import { cm, withManagedFields } from "./support.ts";

type Event = WatchEvent<ConfigMapObject>;

async function* from(events: Event[]): AsyncGenerator<Event> {
  yield* events;
}

/** Runs events through a reflector into `store`, returning each change in brief form. */
async function changes(
  events: Event[],
  store = createStore<ConfigMapObject>(),
  transform?: (o: ConfigMapObject) => ConfigMapObject,
): Promise<string[]> {
  const out: string[] = [];
  for await (const change of reflect(store, from(events), transform)) out.push(brief(change));
  return out;
}

function brief(change: Change<ConfigMapObject>): string {
  const at = (o: ConfigMapObject) => `${o.metadata.name}@${o.metadata.resourceVersion}`;
  switch (change.type) {
    case "add":
      return `add ${at(change.object)}${change.initial ? " (initial)" : ""}`;
    case "update":
      return `update ${at(change.old)}→${at(change.object)}`;
    case "delete":
      return `delete ${at(change.object)}`;
    case "synced":
      return "synced";
  }
}

const list = (...objects: ConfigMapObject[]): Event[] => [
  { type: "init" },
  ...objects.map((object) => ({ type: "initApply" as const, object })),
  { type: "initDone" },
];

describe("reflect", () => {
  it("adds the first list as initial objects, then reports synced", async () => {
    const store = createStore<ConfigMapObject>();
    assert.deepEqual(await changes(list(cm("a"), cm("b")), store), [
      "add a@1 (initial)",
      "add b@1 (initial)",
      "synced",
    ]);
    assert.deepEqual(store.reader.keys().sort(), ["ns/a", "ns/b"]);
  });

  it("reports synced for an empty list", async () => {
    assert.deepEqual(await changes(list()), ["synced"]);
  });

  it("turns applies into adds and updates, and deletes into deletes of the stored object", async () => {
    const store = createStore<ConfigMapObject>();
    const result = await changes(
      [
        ...list(cm("a", "ns", "1")),
        { type: "apply", object: cm("b", "ns", "2") },
        { type: "apply", object: cm("a", "ns", "3") },
        { type: "delete", object: cm("b", "ns", "4") },
      ],
      store,
    );
    assert.deepEqual(result, ["add a@1 (initial)", "synced", "add b@2", "update a@1→a@3", "delete b@2"]);
    assert.deepEqual(store.reader.keys(), ["ns/a"]);
  });

  it("reports the delete of an object it never stored with the event's object", async () => {
    assert.deepEqual(await changes([...list(), { type: "delete", object: cm("ghost", "ns", "9") }]), [
      "synced",
      "delete ghost@9",
    ]);
  });

  it("applies a relist object by object: adds, updates every object still present (moved or not), then deletes the rest", async () => {
    const store = createStore<ConfigMapObject>();
    const result = await changes(
      [
        ...list(cm("same", "ns", "1"), cm("moved", "ns", "1"), cm("gone", "ns", "1")),
        ...list(cm("same", "ns", "1"), cm("moved", "ns", "2"), cm("new", "ns", "3")),
      ],
      store,
    );
    assert.deepEqual(result.slice(4), [
      "update same@1→same@1",
      "update moved@1→moved@2",
      "add new@3",
      "delete gone@1",
      "synced",
    ]);
    assert.deepEqual(store.reader.keys().sort(), ["ns/moved", "ns/new", "ns/same"]);
  });

  it("stores each listed object as it arrives, and keeps the unseen ones until the relist is complete", async () => {
    // The list is never held beside the store: the relist's peak memory stays near the steady cache.
    const store = createStore<ConfigMapObject>();
    const during: string[][] = [];
    const out: string[] = [];
    async function* events(): AsyncGenerator<Event> {
      yield* list(cm("a"), cm("b", "ns", "1"));
      yield { type: "init" };
      yield { type: "initApply", object: cm("c") };
      during.push([...out]);
      yield { type: "initApply", object: cm("b", "ns", "2") };
      during.push(store.reader.keys().sort(), [store.reader.get("ns/b")?.metadata.resourceVersion ?? ""]);
      yield { type: "initDone" };
    }
    for await (const change of reflect(store, events())) out.push(brief(change));
    assert.deepEqual(during, [
      ["add a@1 (initial)", "add b@1 (initial)", "synced", "add c@1"],
      ["ns/a", "ns/b", "ns/c"],
      ["2"],
    ]);
    assert.deepEqual(store.reader.keys().sort(), ["ns/b", "ns/c"]);
    assert.deepEqual(out.slice(3), ["add c@1", "update b@1→b@2", "delete a@1", "synced"]);
  });

  it("deletes nothing when a relist breaks off, and only what the next complete list lacks", async () => {
    const store = createStore<ConfigMapObject>();
    const result = await changes(
      [
        ...list(cm("a"), cm("b"), cm("c")),
        { type: "init" },
        { type: "initApply", object: cm("a", "ns", "2") },
        ...list(cm("b", "ns", "3")),
      ],
      store,
    );
    assert.deepEqual(result.slice(4), [
      "update a@1→a@2",
      "update b@1→b@3",
      "delete a@2",
      "delete c@1",
      "synced",
    ]);
    assert.deepEqual(store.reader.keys(), ["ns/b"]);
  });

  it("handles a delete inside a watch-list's initial events, then does not delete the object twice", async () => {
    const store = createStore<ConfigMapObject>();
    const result = await changes(
      [
        { type: "init" },
        { type: "initApply", object: cm("a") },
        { type: "delete", object: cm("a", "ns", "2") },
        { type: "initApply", object: cm("a", "ns", "3") },
        { type: "initApply", object: cm("b", "ns", "4") },
        { type: "delete", object: cm("b", "ns", "5") },
        { type: "initDone" },
      ],
      store,
    );
    assert.deepEqual(result, [
      "add a@1 (initial)",
      "delete a@1",
      "add a@3 (initial)",
      "add b@4 (initial)",
      "delete b@4",
      "synced",
    ]);
    assert.deepEqual(store.reader.keys(), ["ns/a"]);
  });

  it("strips managedFields by default, from listed and watched objects", async () => {
    const store = createStore<ConfigMapObject>();
    await changes(
      [...list(withManagedFields(cm("a"))), { type: "apply", object: withManagedFields(cm("b")) }],
      store,
    );
    assert.equal(store.reader.get("ns/a")?.metadata.managedFields, undefined);
    assert.equal(store.reader.get("ns/b")?.metadata.managedFields, undefined);
    assert.equal(store.reader.get("ns/a")?.metadata.name, "a");
  });

  it("applies a custom transform before storing", async () => {
    const store = createStore<ConfigMapObject>();
    const keep = (o: ConfigMapObject) => ({ ...o, data: { seen: "yes" } });
    await changes([...list(withManagedFields(cm("a"))), { type: "apply", object: cm("b") }], store, keep);
    assert.deepEqual(store.reader.get("ns/a")?.data, { seen: "yes" });
    assert.ok(store.reader.get("ns/a")?.metadata.managedFields, "a custom transform replaces the default");
    assert.deepEqual(store.reader.get("ns/b")?.data, { seen: "yes" });
  });
});

describe("stripManagedFields", () => {
  it("removes managedFields and keeps the rest of the metadata", () => {
    const stripped = stripManagedFields(withManagedFields(cm("a", "ns", "7", { app: "web" })));
    assert.deepEqual(stripped, cm("a", "ns", "7", { app: "web" }));
    assert.equal("managedFields" in stripped.metadata, false);
  });

  it("returns the same object when there is nothing to strip", () => {
    const obj = cm("a");
    assert.equal(stripManagedFields(obj), obj);
  });
});
