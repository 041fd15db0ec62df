/**
 * The periodic relist heals a cache whose watch lost events: behind the fault proxy, every watch
 * event of ConfigMaps is dropped while one changes, and nothing changes after that. Only the
 * informer's relist (every 5 s here) can show the controller the change; it must reconcile it
 * without any further change to the object, and count the miss in kubeloop_cache_divergence_total.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { controller } from "../../../src/controller/index.ts";
import { startProxy, upstreamFromKubeconfig } from "../../../src/testing/proxy/index.ts";
import {
  eventually,
  kubeconfigPath,
  managerMetric,
  onCleanup,
  startManager,
  testClient,
  testNamespace,
} from "../support.ts";

const relistMs = 5_000;
const mirrorOf = (name: string) => `${name}-mirror`;

function configMap(namespace: string, name: string, value: string): ConfigMapObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { value } };
}

test("a relist heals a cache whose watch dropped an update: the controller reconciles it with no further change", async (t) => {
  const ns = await testNamespace(t);
  const admin = await testClient();
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  onCleanup(t, () => proxy.stop());
  const seen: string[] = [];
  const manager = await startManager(
    t,
    {
      name: "relist-e2e",
      namespace: ns,
      config: { kubeconfig: proxy.kubeconfig() },
      clientOptions: { qps: Number.POSITIVE_INFINITY },
      cache: { informer: { relist: { periodMs: relistMs } } },
    },
    (m) => {
      controller(m)
        .for(ConfigMap)
        .reconcile(async (ctx) => {
          const source = ctx.object;
          const name = source?.metadata.name ?? "";
          if (!source || name.endsWith("-mirror")) return;
          seen.push(source.data?.value ?? "");
          await ctx.client.apply(ConfigMap, configMap(ns, mirrorOf(name), source.data?.value ?? ""));
        });
    },
  );
  const mirrored = (value: string) => async () =>
    (await admin.get(ConfigMap, mirrorOf("source"), { namespace: ns }).catch(() => undefined))?.data
      ?.value === value;

  await admin.create(ConfigMap, configMap(ns, "source", "one"));
  await eventually(mirrored("one"), { what: "the first value mirrored" });
  const diverged = () => managerMetric(manager, "kubeloop_cache_divergence_total", { kind: "ConfigMap" });
  const before = await diverged();

  const drop = proxy.inject({ verb: "watch", resource: "configmaps" }, { dropEvents: "all" });
  onCleanup(t, () => drop.remove());
  const changedAt = Date.now();
  await admin.patch(ConfigMap, "source", { data: { value: "two" } }, { type: "merge", namespace: ns });
  await eventually(mirrored("two"), { what: "the change mirrored after a relist", timeoutMs: 4 * relistMs });
  const healedInMs = Date.now() - changedAt;
  t.diagnostic(`healed ${healedInMs} ms after the change`);

  const dropped = proxy
    .requests()
    .filter((r) => r.verb === "watch" && r.resource === "configmaps")
    .reduce((sum, r) => sum + (r.events?.dropped ?? 0), 0);
  assert.ok(dropped > 0, "the watch really lost the change");
  assert.deepEqual(seen.slice(-1), ["two"]);
  assert.ok(
    (await diverged()) > before,
    "the relist counted what the watch missed in kubeloop_cache_divergence_total",
  );
  const source = await admin.get(ConfigMap, "source", { namespace: ns });
  assert.equal(source.data?.value, "two", "nobody touched the object after the change");
});
