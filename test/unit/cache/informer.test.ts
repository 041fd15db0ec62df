import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { Informer, type InformerHandler, type InformerOptions } from "../../../src/cache/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { FakeWatchClient, flush, isSettled } from "../watch/support.ts";
import { cm, names, withManagedFields } from "./support.ts";

/** An informer of ConfigMaps that lists, then watches, on a fake client. */
function startInformer(t: TestContext, options: InformerOptions<ConfigMapObject> = {}) {
  const client = new FakeWatchClient();
  const clock = new FakeClock(1_000);
  const errors: [unknown, string][] = [];
  const informer = new Informer<ConfigMapObject>(client, ConfigMap, {
    clock,
    onError: (err, context) => errors.push([err, context]),
    ...options,
    watch: { initialState: "list", backoff: { initialMs: 1_000, maxMs: 1_000 }, ...options.watch },
  });
  const stop = new AbortController();
  t.after(() => stop.abort());
  const start = () => informer.start(stop.signal);
  return { client, clock, errors, informer, stop, start };
}

/** A handler recording every call in brief form. */
function recording(log: string[], prefix = ""): InformerHandler<ConfigMapObject> {
  const at = (o: ConfigMapObject) => `${o.metadata.name}@${o.metadata.resourceVersion}`;
  return {
    onAdd: (obj, initial) => log.push(`${prefix}add ${at(obj)}${initial ? " (initial)" : ""}`),
    onUpdate: (old, obj) => log.push(`${prefix}update ${at(old)}→${at(obj)}`),
    onDelete: (obj) => log.push(`${prefix}delete ${at(obj)}`),
  };
}

describe("Informer", () => {
  it("stores the first list, marks itself synced and hands adds, updates and deletes to handlers", async (t) => {
    const { client, informer, start } = startInformer(t);
    const log: string[] = [];
    informer.addHandler(recording(log));
    client.page([cm("a", "ns", "1"), cm("b", "ns", "1")], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    assert.equal(informer.synced, true);
    assert.deepEqual(informer.store.keys().sort(), ["ns/a", "ns/b"]);
    stream.send("MODIFIED", cm("a", "ns", "11")).send("ADDED", cm("c", "ns", "12"));
    stream.send("DELETED", cm("b", "ns", "13"));
    await flush();
    assert.deepEqual(log, [
      "add a@1 (initial)",
      "add b@1 (initial)",
      "update a@1→a@11",
      "add c@12",
      "delete b@1",
    ]);
    assert.deepEqual(informer.store.keys().sort(), ["ns/a", "ns/c"]);
  });

  it("passes its scope to the watch", async (t) => {
    const { client, informer, start } = startInformer(t, {
      namespace: "ns",
      labelSelector: "app=web",
      fieldSelector: "metadata.name!=x",
      metadataOnly: true,
      watch: { pageSize: 7 },
    });
    assert.deepEqual(informer.scope, {
      namespace: "ns",
      labelSelector: "app=web",
      fieldSelector: "metadata.name!=x",
      metadataOnly: true,
    });
    client.page([], "1");
    void start();
    await flush();
    const { signal: _, ...listed } = client.lists[0] ?? {};
    assert.deepEqual(listed, {
      namespace: "ns",
      labelSelector: "app=web",
      fieldSelector: "metadata.name!=x",
      metadataOnly: true,
      limit: 7,
      continue: undefined,
    });
  });

  it("replays the stored objects as initial adds to a handler added after sync", async (t) => {
    const { client, informer, start } = startInformer(t);
    client.page([cm("a"), cm("b")], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    const log: string[] = [];
    informer.addHandler(recording(log));
    assert.deepEqual(log.sort(), ["add a@1 (initial)", "add b@1 (initial)"]);
    stream.send("ADDED", cm("c", "ns", "11"));
    await flush();
    assert.deepEqual(log.at(-1), "add c@11");
  });

  it("stops calling a handler once it is removed", async (t) => {
    const { client, informer, start } = startInformer(t);
    const log: string[] = [];
    const remove = informer.addHandler(recording(log));
    client.page([], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    stream.send("ADDED", cm("a", "ns", "11"));
    await flush();
    remove();
    stream.send("ADDED", cm("b", "ns", "12"));
    await flush();
    assert.deepEqual(log, ["add a@11"]);
    assert.equal(informer.store.size, 2);
  });

  it("reports a throwing handler through onError and keeps serving the other handlers and the watch", async (t) => {
    const { client, informer, start, errors } = startInformer(t);
    const log: string[] = [];
    const boom = new Error("handler bug");
    informer.addHandler({
      onAdd: () => {
        throw boom;
      },
      onUpdate: () => {
        throw boom;
      },
    });
    informer.addHandler(recording(log));
    client.page([cm("a")], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    stream.send("MODIFIED", cm("a", "ns", "11")).send("ADDED", cm("b", "ns", "12"));
    await flush();
    assert.deepEqual(log, ["add a@1 (initial)", "update a@1→a@11", "add b@12"]);
    assert.deepEqual(
      errors.map(([err, context]) => [err, context]),
      [
        [boom, "ConfigMap handler failed on add"],
        [boom, "ConfigMap handler failed on update"],
        [boom, "ConfigMap handler failed on add"],
      ],
    );
    assert.equal(informer.store.size, 2);
  });

  it("reports watch failures through onError while it retries", async (t) => {
    const { client, clock, informer, start, errors } = startInformer(t);
    client.failList(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    void start();
    await flush();
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.[1] ?? "", /^watch of ConfigMap failed; retrying in \d+ ms$/);
    assert.equal(informer.synced, false);
    client.page([cm("a")], "10");
    client.stream();
    clock.advance(1_000);
    await informer.waitForSync();
    assert.equal(informer.store.size, 1);
  });

  it("strips managedFields by default, and applies a custom transform instead when given", async (t) => {
    const first = startInformer(t);
    first.client.page([withManagedFields(cm("a"))], "10");
    first.client.stream();
    void first.start();
    await first.informer.waitForSync();
    assert.equal(first.informer.store.get("ns/a")?.metadata.managedFields, undefined);

    const second = startInformer(t, { transform: (o) => o });
    second.client.page([withManagedFields(cm("a"))], "10");
    second.client.stream();
    void second.start();
    await second.informer.waitForSync();
    assert.equal(second.informer.store.get("ns/a")?.metadata.managedFields?.length, 1);
  });

  it("serves custom indexes, including ones added later", async (t) => {
    const { client, informer, start } = startInformer(t, {
      indexers: { app: (o) => [o.metadata.labels?.app ?? ""] },
    });
    client.page([cm("a", "ns", "1", { app: "web" }, { k: "1" }), cm("b", "ns", "1", { app: "db" })], "10");
    client.stream();
    void start();
    await informer.waitForSync();
    assert.deepEqual(names(informer.store.byIndex("app", "web")), ["a"]);
    informer.addIndexer("dataKeys", (o) => Object.keys(o.data ?? {}));
    assert.deepEqual(names(informer.store.byIndex("dataKeys", "k")), ["a"]);
  });

  it("starts only one watch however often start is called", async (t) => {
    const { client, informer, start } = startInformer(t);
    client.page([], "10");
    client.stream();
    const first = start();
    assert.equal(start(), first);
    await informer.waitForSync();
    assert.equal(client.lists.length, 1);
  });

  it("tracks the time since the last change on its clock", async (t) => {
    const { client, clock, informer, start } = startInformer(t);
    assert.equal(informer.msSinceLastEvent, undefined);
    client.page([cm("a")], "10");
    client.stream();
    void start();
    await informer.waitForSync();
    clock.advance(2_500);
    assert.equal(informer.msSinceLastEvent, 2_500);
  });
});

describe("Informer.waitForSync", () => {
  it("waits for the first list", async (t) => {
    const { client, informer, start } = startInformer(t);
    const synced = informer.waitForSync();
    void start();
    assert.equal(await isSettled(synced), false);
    client.page([], "1");
    await synced;
    assert.equal(informer.synced, true);
  });

  it("resolves, without syncing, when its signal aborts", async (t) => {
    const { informer } = startInformer(t);
    const stop = new AbortController();
    const waiting = informer.waitForSync(stop.signal);
    assert.equal(await isSettled(waiting), false);
    stop.abort();
    await waiting;
    assert.equal(informer.synced, false);
  });

  it("resolves at once for a signal that has already aborted", async (t) => {
    const { informer } = startInformer(t);
    assert.equal(await isSettled(informer.waitForSync(AbortSignal.abort())), true);
  });

  it("ends the informer quietly when stopped", async (t) => {
    const { client, informer, start, stop, errors } = startInformer(t);
    client.page([], "1");
    client.stream();
    const running = start();
    await informer.waitForSync();
    stop.abort();
    await running;
    assert.deepEqual(errors, []);
  });
});
