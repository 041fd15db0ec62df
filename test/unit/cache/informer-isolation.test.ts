import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConfigMapObject } from "../../../src/api/index.ts";
import type { InformerCallback } from "../../../src/cache/index.ts";
import { ClientClosedError } from "../../../src/client/index.ts";
import { flush } from "../watch/support.ts";
import { cm, names, recording, startInformer } from "./support.ts";

/** An indexer that, like `o => [o.spec.ref.name]`, throws on objects without the field. */
const byRef = (o: ConfigMapObject): string[] => [(o.data as { ref: string }).ref.toLowerCase()];

/** Informer metrics that record each callback failure. */
function countingCallbacks() {
  const failed: InformerCallback[] = [];
  return { failed, metrics: { callbackError: (callback: InformerCallback) => failed.push(callback) } };
}

describe("Informer: user callbacks cannot stop it", () => {
  it("stores an object its indexer throws on, outside that index, syncs and keeps watching", async (t) => {
    const counted = countingCallbacks();
    const { client, informer, start, errors } = startInformer(t, {
      indexers: { byRef },
      metrics: counted.metrics,
    });
    client.page([cm("good", "ns", "1", undefined, { ref: "X" }), cm("bad")], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    assert.deepEqual(informer.store.keys().sort(), ["ns/bad", "ns/good"]);
    assert.deepEqual(names(informer.store.byIndex("byRef", "x")), ["good"]);
    stream
      .send("ADDED", cm("later", "ns", "11", undefined, { ref: "Y" }))
      .send("MODIFIED", cm("bad", "ns", "12"));
    await flush();
    assert.deepEqual(names(informer.store.byIndex("byRef", "y")), ["later"], "the watch goes on");
    assert.equal(informer.store.get("ns/bad")?.metadata.resourceVersion, "12");
    assert.deepEqual(counted.failed, ["indexer", "indexer"]);
    assert.deepEqual(
      errors.map(([, context]) => context),
      [
        'ConfigMap indexer "byRef" failed on ns/bad; it is stored outside that index',
        'ConfigMap indexer "byRef" failed on ns/bad; it is stored outside that index',
      ],
    );
    assert.equal(informer.health().state, "synced");
  });

  it("isolates an indexer added later, and one that returns no array", async (t) => {
    const { client, informer, start, errors } = startInformer(t);
    client.page([cm("a", "ns", "1", undefined, { ref: "X" }), cm("b")], "10");
    client.stream();
    void start();
    await informer.waitForSync();
    informer.addIndexer("byRef", byRef);
    informer.addIndexer("broken", () => "not-an-array" as unknown as string[]);
    assert.deepEqual(names(informer.store.byIndex("byRef", "x")), ["a"]);
    assert.deepEqual(informer.store.byIndex("broken", "n"), []);
    assert.equal(errors.length, 3, "b under byRef, a and b under broken");
  });

  it("stores an object its transform throws on untransformed, and counts it", async (t) => {
    const counted = countingCallbacks();
    const { client, informer, start, errors } = startInformer(t, {
      metrics: counted.metrics,
      transform: (o) => ({ ...o, data: { ref: (o.data as { ref: string }).ref.toLowerCase() } }),
    });
    client.page(
      [cm("good", "ns", "1", undefined, { ref: "X" }), cm("bad", "ns", "1", undefined, { other: "1" })],
      "10",
    );
    client.stream();
    void start();
    await informer.waitForSync();
    assert.deepEqual(informer.store.get("ns/good")?.data, { ref: "x" });
    assert.deepEqual(informer.store.get("ns/bad")?.data, { other: "1" });
    assert.deepEqual(counted.failed, ["transform"]);
    assert.equal(errors[0]?.[1], "ConfigMap transform failed on ns/bad; it is stored untransformed");
  });

  it("counts handler failures as callback errors", async (t) => {
    const counted = countingCallbacks();
    const { client, informer, start } = startInformer(t, { metrics: counted.metrics });
    informer.addHandler({
      onAdd: () => {
        throw new Error("handler bug");
      },
    });
    client.page([cm("a")], "10");
    client.stream();
    void start();
    await informer.waitForSync();
    assert.deepEqual(counted.failed, ["handler"]);
  });
});

describe("Informer: restarts and health", () => {
  it("restarts with backoff when its loop dies, reporting it in health, and keeps its store", async (t) => {
    const restarts: number[] = [];
    const { client, clock, informer, start, errors } = startInformer(t, {
      metrics: { restart: (_err, delayMs) => restarts.push(delayMs) },
    });
    const log: string[] = [];
    informer.addHandler(recording(log));
    client.page([cm("a")], "10");
    const stream = client.stream();
    void start();
    await informer.waitForSync();
    stream.send("ADDED", { kind: "ConfigMap" }); // No metadata: storing it throws inside the informer.
    await flush();
    const failing = informer.health();
    assert.equal(failing.state, "failing");
    assert.equal(failing.restarts, 1);
    assert.ok(failing.lastError instanceof TypeError);
    assert.equal(restarts.length, 1);
    assert.ok(restarts[0] !== undefined && restarts[0] >= 500 && restarts[0] <= 1_000);
    assert.match(errors.at(-1)?.[1] ?? "", /^informer ConfigMap died; restarting in \d+ ms$/);
    assert.deepEqual(informer.store.keys(), ["ns/a"], "the store stays while it restarts");
    clock.advance(600);
    assert.equal(informer.health().failingForMs, 600);
    client.page([cm("a"), cm("b", "ns", "11")], "12");
    client.stream();
    clock.advance(400);
    await flush();
    assert.equal(client.lists.length, 2, "listed again after the backoff");
    assert.equal(informer.health().state, "synced");
    assert.deepEqual(
      log,
      ["add a@1 (initial)", "update a@1→a@1", "add b@11"],
      "a restart's adds are not initial",
    );
  });

  it("stops for good when its client is closed under it, saying so, instead of restarting", async (t) => {
    const restarts: number[] = [];
    const { client, clock, informer, start, errors } = startInformer(t, {
      metrics: { restart: (_err, delayMs) => restarts.push(delayMs) },
    });
    client.page([cm("a")], "10");
    const stream = client.stream();
    const running = start();
    await informer.waitForSync();
    client.failWatch(new ClientClosedError("https://s"));
    stream.send("ADDED", cm("b", "ns", "11")).end(); // A clean close: the watch resumes at once.
    await running;
    const health = informer.health();
    assert.equal(health.state, "stopped");
    assert.equal((health.lastError as ClientClosedError).code, "KL_CLIENT_CLOSED");
    assert.deepEqual(restarts, [], "not restarted");
    assert.equal(errors.at(-1)?.[1], "informer ConfigMap stopped: its client was closed while it ran");
    clock.advance(3_600_000);
    await flush();
    assert.equal(client.lists.length, 1, "no relist either");
  });

  it("goes pending → syncing → failing → synced → stopped", async (t) => {
    const { client, clock, informer, start, stop } = startInformer(t);
    assert.equal(informer.health().state, "pending");
    const running = start();
    await flush();
    assert.equal(informer.health().state, "syncing");
    client.failList(new Error("boom"));
    await flush();
    assert.deepEqual(
      [informer.health().state, (informer.health().lastError as Error).message],
      ["failing", "boom"],
    );
    client.page([], "1");
    client.stream();
    clock.advance(1_000);
    await informer.waitForSync();
    const healthy = informer.health();
    assert.deepEqual([healthy.state, healthy.failingForMs, healthy.synced], ["synced", 0, true]);
    assert.equal((healthy.lastError as Error).message, "boom", "the last error stays visible");
    stop.abort();
    await running;
    assert.equal(informer.health().state, "stopped");
  });
});
