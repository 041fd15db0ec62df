import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { ConfigMap, Event } from "../../../src/api/index.ts";
import { Client, ForbiddenError, loadKubeconfig } from "../../../src/client/index.ts";
import { EventRecorder } from "../../../src/events/index.ts";
import { type FaultProxy, startProxy, upstreamFromKubeconfig } from "../../../src/testing/proxy/index.ts";
import { eventually, kubeconfigPath, testClient, testNamespace } from "../support.ts";

/** A fault-injecting proxy in front of the run's apiserver, and a client that goes through it. */
async function proxied(t: TestContext): Promise<{ proxy: FaultProxy; client: Client }> {
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  t.after(() => proxy.stop());
  const client = new Client(await loadKubeconfig({ kubeconfig: proxy.kubeconfig(kubeconfigPath()) }), {
    qps: Number.POSITIVE_INFINITY,
  });
  t.after(() => client.close());
  return { proxy, client };
}

function eventCreates(proxy: FaultProxy, namespace: string): number {
  return proxy
    .requests()
    .filter((r) => r.verb === "create" && r.resource === "events" && r.namespace === namespace).length;
}

test("a create answered 503 is retried in the background until the Event lands", async (t) => {
  const ns = await testNamespace(t);
  const { proxy, client } = await proxied(t);
  const admin = await testClient();
  const settings = await admin.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: ns },
  });
  const warnings: string[] = [];
  const recorder = new EventRecorder(client, {
    reportingController: "kubeloop.dev/events-e2e",
    logger: { warn: (_obj, msg) => warnings.push(msg) },
    retry: { baseDelayMs: 50 },
  });
  t.after(() => recorder.close(AbortSignal.timeout(10_000)));
  proxy.inject({ verb: "create", resource: "events", times: 2 }, { status: 503 });

  recorder.normal(settings, "Created", "Create", "after two 503s");

  const [event] = await eventually(
    async () => {
      const { items } = await admin.list(Event, { namespace: ns });
      return items.length === 1 ? items : undefined;
    },
    { what: "the Event" },
  );
  assert.equal(event?.note, "after two 503s");
  assert.equal(eventCreates(proxy, ns), 3);
  assert.deepEqual(warnings, []);
  // The apiserver stores the Event before the recorder has read the answer to its create.
  await eventually(() => recorder.stats.created === 1 || undefined, { what: "the create counted" });
  assert.deepEqual(recorder.stats, {
    recorded: 1,
    created: 1,
    seriesUpdates: 0,
    droppedRateLimited: 0,
    droppedQueueFull: 0,
    failed: 0,
  });
});

test("a create the apiserver refuses is logged and counted, never thrown, and not retried", async (t) => {
  const ns = await testNamespace(t);
  const { proxy, client } = await proxied(t);
  const logged: { obj: { err?: unknown }; msg: string }[] = [];
  const recorder = new EventRecorder(client, {
    reportingController: "kubeloop.dev/events-e2e",
    logger: { warn: (obj, msg) => logged.push({ obj, msg }) },
  });
  t.after(() => recorder.close(AbortSignal.timeout(10_000)));
  proxy.inject(
    { verb: "create", resource: "events" },
    { status: 403, reason: "Forbidden", message: "events is forbidden" },
  );

  const settings = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: ns, uid: "u-1" },
  };
  assert.doesNotThrow(() => recorder.warning(settings, "Failed", "Reconcile", "refused"));

  await eventually(() => recorder.stats.failed === 1, { what: "the failure to be counted" });
  assert.equal(logged.length, 1);
  assert.ok(logged[0]?.obj.err instanceof ForbiddenError);
  assert.equal(eventCreates(proxy, ns), 1);
  assert.equal((await (await testClient()).list(Event, { namespace: ns })).items.length, 0);
});
