/**
 * Read your own writes: a key reconciled again before its informer saw what its last reconcile
 * wrote waits (bounded) for it, so that it does not create a child twice nor read its own status
 * stale. A real controller, informer cache (on a scripted watch) and client (on a stubbed undici).
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { pino } from "pino";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { Client } from "../../../src/client/index.ts";
import { Controller, type ControllerOptions, type ReconcileContext } from "../../../src/controller/index.ts";
import { EventRecorder } from "../../../src/events/index.ts";
import { newCache } from "../cache/support.ts";
import { fakeConnection } from "../client/support.ts";
import { type SentRequest, stubUndici } from "../client/undici-stub.ts";
import { FakeEventClient } from "../events/support.ts";
import { FakeSource, flush, recordingControllerMetrics, until } from "./support.ts";

function cm(name: string, resourceVersion: string, data?: Record<string, string>): ConfigMapObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "ns", resourceVersion, uid: `uid-${name}` },
    ...(data ? { data } : {}),
  };
}

/** What the stubbed apiserver answers a write with: the sent object at resourceVersion `rv`. */
function written(request: SentRequest, rv: string): ConfigMapObject {
  const sent = JSON.parse(request.body ?? "{}") as ConfigMapObject;
  return {
    ...sent,
    metadata: { ...sent.metadata, namespace: "ns", resourceVersion: rv, uid: `uid-${sent.metadata.name}` },
  };
}

/**
 * A controller of ConfigMaps whose reconcile of `ns/a` runs `reconcile`, over a cache of
 * ConfigMaps that listed `a` at resourceVersion 1; the apiserver answers each write at the next
 * resourceVersion from 5 (a delete with a Status).
 */
async function setup(
  t: TestContext,
  reconcile: (ctx: ReconcileContext<ConfigMapObject>) => Promise<void>,
  options: ControllerOptions = {},
) {
  let rv = 4;
  const sent = stubUndici(t, (request) =>
    request.method === "DELETE"
      ? { status: 200, body: { kind: "Status", status: "Success" } }
      : { status: 201, body: written(request, String(++rv)) },
  );
  const { client: watch, clock, cache, stop } = newCache(t);
  const configMaps = watch.kind("ConfigMap");
  configMaps.page([cm("a", "1")], "1");
  const stream = configMaps.stream();
  const informer = cache.informer(ConfigMap);
  cache.start(stop.signal);
  await cache.waitForSync();
  const client = new Client(fakeConnection(), { clock });
  const source = new FakeSource();
  const { metrics, calls } = recordingControllerMetrics();
  const seen: ReconcileContext<ConfigMapObject>[] = [];
  const deps = {
    client,
    cache,
    clock,
    metrics,
    logger: pino({ level: "silent" }),
    recorder: new EventRecorder(new FakeEventClient(), { reportingController: "widgets", clock }),
  };
  const controller = new Controller<ConfigMapObject>(
    "widgets",
    informer,
    [source],
    async (ctx) => {
      seen.push(ctx);
      await reconcile(ctx);
      return undefined;
    },
    deps,
    { resyncPeriodMs: 0, ...options },
  );
  void controller.run(stop.signal);
  await flush();
  /** Queues `ns/a` and lets the worker take it. */
  const enqueue = async () => {
    source.enqueue("ns/a", "test");
    await flush();
    await flush();
  };
  const writes = () =>
    sent.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.split("?")[0]}`);
  return { clock, stream, seen, calls, enqueue, writes };
}

/** Creates `a-child` unless the cache holds it. */
async function ensureChild(ctx: ReconcileContext<ConfigMapObject>): Promise<void> {
  const reader = await ctx.cache.reader(ConfigMap);
  if (!reader.get("a-child", "ns")) await ctx.client.create(ConfigMap, cm("a-child", ""));
}

const childPath = "POST /prefix/api/v1/namespaces/ns/configmaps";

describe("read your own writes (default on)", () => {
  it("does not create a child twice when reconciled again before the informer saw the create", async (t) => {
    const { stream, seen, calls, enqueue, writes } = await setup(t, ensureChild);
    await enqueue();
    await until(() => seen.length === 1 && writes().length === 1);
    await enqueue();
    await until(() => seen.length === 2);
    assert.equal(seen.length, 1, "the second reconcile waits for the informer to show the child");

    stream.send("ADDED", cm("a-child", "5"));
    await until(() => seen.length === 2);
    assert.equal(seen.length, 2);
    assert.deepEqual(writes(), [childPath], "the child was created once");
    assert.ok(calls.includes("own writes observed"));
  });

  it("hands the next reconcile the status it wrote, not the stale cached one", async (t) => {
    const { stream, seen, enqueue } = await setup(t, async (ctx) => {
      if (ctx.object?.data?.phase !== "done")
        await ctx.client.update(ConfigMap, cm("a", "1", { phase: "done" }));
    });
    await enqueue();
    await until(() => seen.length === 1);
    await enqueue();
    stream.send("MODIFIED", cm("a", "5", { phase: "done" }));
    await until(() => seen.length === 2);
    assert.equal(seen[1]?.object?.metadata.resourceVersion, "5");
    assert.equal(seen[1]?.object?.data?.phase, "done");
  });

  it("waits for a deleted child to leave the cache", async (t) => {
    const { stream, seen, enqueue, writes } = await setup(t, async (ctx) => {
      const reader = await ctx.cache.reader(ConfigMap);
      if (reader.get("a-child", "ns")) await ctx.client.delete(ConfigMap, "a-child", { namespace: "ns" });
    });
    stream.send("ADDED", cm("a-child", "3"));
    await flush();
    await enqueue();
    await until(() => seen.length === 1 && writes().length === 1);
    await enqueue();
    await until(() => seen.length === 2);
    assert.equal(seen.length, 1, "the second reconcile waits for the delete to show");
    stream.send("DELETED", cm("a-child", "6"));
    await until(() => seen.length === 2);
    assert.deepEqual(writes(), ["DELETE /prefix/api/v1/namespaces/ns/configmaps/a-child"]);
  });

  it("reconciles anyway after 5 s when the write never shows, and counts the timeout", async (t) => {
    const { clock, seen, calls, enqueue } = await setup(t, ensureChild);
    await enqueue();
    await until(() => seen.length === 1);
    await enqueue();
    clock.advance(4_999);
    await until(() => seen.length === 2);
    assert.equal(seen.length, 1);
    clock.advance(1);
    await until(() => seen.length === 2);
    assert.equal(seen.length, 2);
    assert.ok(calls.includes("own writes timeout"));
  });

  it("does not wait when the informer already shows the write", async (t) => {
    const { stream, seen, calls, enqueue } = await setup(t, ensureChild);
    await enqueue();
    await until(() => seen.length === 1);
    stream.send("ADDED", cm("a-child", "5"));
    await flush();
    await enqueue();
    await until(() => seen.length === 2);
    assert.equal(seen.length, 2);
    assert.ok(!calls.some((c) => c.startsWith("own writes")), "no wait counted");
  });
});

describe("read your own writes off", () => {
  // The option's other side: reads may be stale, as controller-runtime's default cache reads.
  it("reconciles at once and may create a child twice", async (t) => {
    const { seen, enqueue, writes } = await setup(t, ensureChild, { readYourOwnWrites: false });
    await enqueue();
    await until(() => seen.length === 1 && writes().length === 1);
    await enqueue();
    await until(() => seen.length === 2 && writes().length === 2);
    assert.deepEqual(writes(), [childPath, childPath]);
  });
});
