import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KindNotFoundError } from "../../../src/client/index.ts";
import { flush, isSettled } from "../watch/support.ts";
import { cm, names, recording, startInformer, withManagedFields } from "./support.ts";

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

  it("re-delivers every object still present as an update after a relist, as client-go does", async (t) => {
    const { client, informer, start } = startInformer(t);
    const log: string[] = [];
    informer.addHandler(recording(log));
    client.page([cm("a"), cm("b")], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    client.page([cm("a"), cm("c", "ns", "12")], "12");
    client.stream();
    stream.send("ERROR", { kind: "Status", code: 410, reason: "Expired", message: "too old" });
    await flush();
    assert.deepEqual(log, [
      "add a@1 (initial)",
      "add b@1 (initial)",
      "update a@1→a@1",
      "add c@12",
      "delete b@1",
    ]);
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
      shardSelector: undefined,
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

  it("tells handlers each resourceVersion its store caught up to, after the change at it was handled", async (t) => {
    const { client, informer, start, errors } = startInformer(t);
    const log: string[] = [];
    const progress = (rv: string) =>
      log.push(`progress ${rv} (lastSync ${informer.lastSyncResourceVersion})`);
    informer.addHandler({ ...recording(log), onProgress: progress });
    informer.addHandler({
      onProgress: () => {
        throw new Error("handler bug");
      },
    });
    assert.equal(informer.lastSyncResourceVersion, undefined, "nothing listed yet");
    client.page([cm("a")], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    stream.send("DELETED", cm("a", "ns", "11")).bookmark("12");
    await flush();
    assert.deepEqual(log, [
      "add a@1 (initial)",
      "progress 10 (lastSync 10)",
      "delete a@1",
      "progress 11 (lastSync 11)",
      "progress 12 (lastSync 12)",
    ]);
    assert.deepEqual(
      errors.map(([, context]) => context),
      ["10", "11", "12"].map((rv) => `ConfigMap handler failed on progress to ${rv}`),
    );
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
        [boom, "ConfigMap handler failed on add of ns/a"],
        [boom, "ConfigMap handler failed on update of ns/a"],
        [boom, "ConfigMap handler failed on add of ns/b"],
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

  it("reports a kind the server does not serve once per attempt, in its health, and syncs once it is served", async (t) => {
    const { client, clock, informer, start, errors } = startInformer(t, {
      watch: { initialState: "streaming" },
    });
    const notServed = () =>
      new KindNotFoundError("v1", "ConfigMap", { groupVersions: ["v1"], kindVersions: [] });
    client.failWatch(notServed()).failList(notServed());
    void start();
    await flush();
    assert.equal(errors.length, 1, "the failed streaming attempt and the list that follows are one attempt");
    assert.ok(errors[0]?.[0] instanceof KindNotFoundError);
    const health = informer.health();
    assert.equal(health.state, "failing");
    assert.match(String((health.lastError as Error).message), /v1 has no kind ConfigMap.*`kubeloop install`/);
    client.failList(notServed());
    clock.advance(1_000);
    await flush();
    assert.equal(errors.length, 2, "it keeps retrying with backoff");
    client.page([cm("a")], "10");
    client.stream();
    clock.advance(1_000);
    await informer.waitForSync();
    assert.equal(informer.health().state, "synced");
    assert.equal(errors.length, 2);
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

  it("rejects with an AbortError, without syncing, when its signal aborts", async (t) => {
    const { informer } = startInformer(t);
    const stop = new AbortController();
    const waiting = informer.waitForSync(stop.signal);
    assert.equal(await isSettled(waiting), false);
    stop.abort();
    await assert.rejects(waiting, { name: "AbortError" });
    assert.equal(informer.synced, false);
  });

  it("rejects at once with the reason of a signal that has already aborted", async (t) => {
    const { informer } = startInformer(t);
    const reason = new Error("shutting down");
    await assert.rejects(informer.waitForSync(AbortSignal.abort(reason)), reason);
  });

  it("rejects with CacheSyncTimeoutError after timeoutMs, naming the kind and the last failure", async (t) => {
    const { client, clock, informer, start } = startInformer(t);
    client.failList(new Error("connection reset by the proxy"));
    void start();
    const waiting = informer.waitForSync(undefined, 60_000);
    clock.advance(59_999);
    assert.equal(await isSettled(waiting), false);
    clock.advance(1);
    await assert.rejects(waiting, {
      code: "KL_CACHE_SYNC_TIMEOUT",
      kind: "v1/ConfigMap",
      message:
        /cache of ConfigMap \(v1\) did not sync within 60 s: its last list or watch failed \(connection reset by the proxy\)/,
    });
  });

  it("leaves no timer behind once synced", async (t) => {
    const { client, clock, informer, start } = startInformer(t);
    void start();
    const waiting = informer.waitForSync(new AbortController().signal, 60_000);
    client.page([], "1");
    client.stream();
    await waiting;
    const pending = clock.pending;
    clock.advance(60_000);
    assert.equal(clock.pending, pending, "nothing fired: the timeout was cancelled");
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
