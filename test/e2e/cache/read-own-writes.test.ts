/**
 * Read your own writes on the real apiserver: behind the fault proxy, every watch event of
 * ConfigMaps reaches the operator 1.5 s late, so a reconcile requeued after 100 ms runs long
 * before the informer shows what the last one created. With `readYourOwnWrites` (the default) the
 * next reconcile waits for the informer and finds the child: one create, no AlreadyExists. Turned
 * off, the same controller reads the stale cache and tries to create the child again. A child
 * someone else deleted since is not waited for: the informer will never show it again.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { ConfigMap, type ConfigMapObject } from "../../../src/api/index.ts";
import { AlreadyExistsError } from "../../../src/client/index.ts";
import { Action, controller } from "../../../src/controller/index.ts";
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

const eventDelayMs = 1_500;
const reconcilesWanted = 4;

function configMap(namespace: string, name: string): ConfigMapObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { value: "v" } };
}

/**
 * Runs a controller that creates `parent-child` when its cache does not show it and requeues
 * `parent` after 100 ms until it has reconciled it {@link reconcilesWanted} times; returns its
 * create attempts, the AlreadyExists answers it met, and its manager.
 */
async function run(t: TestContext, readYourOwnWrites: boolean | undefined) {
  const ns = await testNamespace(t);
  const proxy = await startProxy({ upstream: upstreamFromKubeconfig(kubeconfigPath()) });
  onCleanup(t, () => proxy.stop());
  const delay = proxy.inject({ verb: "watch", resource: "configmaps" }, { delayEventsMs: eventDelayMs });
  onCleanup(t, () => delay.remove());
  const seen = { reconciles: 0, creates: 0, alreadyExists: 0 };
  const manager = await startManager(
    t,
    {
      name: "own-writes-e2e",
      namespace: ns,
      config: { kubeconfig: proxy.kubeconfig() },
      ...(readYourOwnWrites === undefined ? {} : { readYourOwnWrites }),
    },
    (m) => {
      controller(m)
        .for(ConfigMap)
        .reconcile(async (ctx) => {
          if (ctx.request.name !== "parent" || !ctx.object) return;
          if (++seen.reconciles > reconcilesWanted) return;
          const children = await ctx.cache.reader(ConfigMap, ctx.signal);
          if (!children.get("parent-child", ns)) {
            seen.creates++;
            await ctx.client.create(ConfigMap, configMap(ns, "parent-child")).catch((err: unknown) => {
              if (!(err instanceof AlreadyExistsError)) throw err;
              seen.alreadyExists++;
            });
          }
          return Action.requeueAfter(100);
        });
    },
  );
  await (await testClient()).create(ConfigMap, configMap(ns, "parent"));
  await eventually(() => seen.reconciles >= reconcilesWanted, {
    what: `${reconcilesWanted} reconciles of parent`,
    timeoutMs: 60_000,
  });
  return { seen, manager };
}

test("by default, a reconcile requeued before the informer saw its create waits for it: the child is created once", async (t) => {
  const { seen, manager } = await run(t, undefined);
  assert.equal(seen.creates, 1, "one create");
  assert.equal(seen.alreadyExists, 0);
  const observed = await managerMetric(manager, "kubeloop_read_own_writes_waits_total", {
    controller: "configmap",
    outcome: "observed",
  });
  assert.ok(observed >= 1, `the wait was counted (${observed})`);
});

test("with readYourOwnWrites false, the same reconcile reads the stale cache and creates the child again", async (t) => {
  // The option's other side, to show the delay really leaves the cache behind the writes.
  const { seen } = await run(t, false);
  assert.ok(seen.creates > 1, `created again (${seen.creates} creates)`);
  assert.ok(seen.alreadyExists >= 1);
});

test("a written child someone else deleted is not waited for: the next reconcile creates it again at once", async (t) => {
  // No proxy: the informer is not late, so any wait before the next reconcile is one for the
  // deleted child, which only the bound (5 s) would end before the fix.
  const ns = await testNamespace(t);
  let creates = 0;
  const manager = await startManager(t, { name: "own-writes-deleted-e2e", namespace: ns }, (m) => {
    controller(m)
      .for(ConfigMap)
      .reconcile(async (ctx) => {
        if (ctx.request.name !== "parent" || !ctx.object) return;
        const children = await ctx.cache.reader(ConfigMap, ctx.signal);
        if (children.get("parent-child", ns)) return;
        creates++;
        await ctx.client.create(ConfigMap, configMap(ns, "parent-child"));
      });
  });
  const admin = await testClient();
  await admin.create(ConfigMap, configMap(ns, "parent"));
  await eventually(() => creates === 1, { what: "the child created", timeoutMs: 60_000 });
  await admin.delete(ConfigMap, "parent-child", { namespace: ns });
  // One informer delivers both in resourceVersion order: the parent's reconcile comes after the delete.
  await admin.patch(ConfigMap, "parent", { data: { value: "touched" } }, { type: "merge", namespace: ns });
  await eventually(() => creates === 2, { what: "the child created again", timeoutMs: 60_000 });
  const timeouts = await managerMetric(manager, "kubeloop_read_own_writes_waits_total", {
    controller: "configmap",
    outcome: "timeout",
  });
  assert.equal(timeouts, 0, "no wait ran to its bound");
});
