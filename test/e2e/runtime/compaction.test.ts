import assert from "node:assert/strict";
import { test } from "node:test";
import { startProxy } from "../../../src/testing/proxy/index.ts";
import { convergedWidgets, installWidgetCrd, SideEffects } from "../fixtures/widgets.ts";
import { eventually } from "../support.ts";
import { onCleanup } from "../watch/support.ts";
import {
  clientFor,
  createNamespace,
  createWidgets,
  metricValue,
  ownCluster,
  setMessage,
  startWidgetManager,
} from "./support.ts";

const names = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `w${from + i}`);

test("an etcd compaction behind a silenced watch forces a 410, a relist, and no duplicate side effect", async (t) => {
  // With the watch cache on, the apiserver serves a resumed watch from its own in-memory history,
  // which an etcd compaction does not touch, so the resume would simply succeed. Without it,
  // every watch is an etcd watch from the requested revision, which etcd refuses once compacted
  // past it: the apiserver answers 410 Expired, as a real cluster does after a long disconnect.
  const cluster = await ownCluster(t, ["--watch-cache=false"]);
  await installWidgetCrd(cluster.kubeconfigPath);
  const proxy = await startProxy({ cluster });
  onCleanup(t, () => proxy.stop());
  const admin = await clientFor(t, cluster.kubeconfigPath);
  const ns = await createNamespace(admin, "widgets");
  const effects = new SideEffects();
  const manager = await startWidgetManager(t, await clientFor(t, proxy.kubeconfig()), ns, effects);
  const expiredRelists = () =>
    metricValue(manager, "kubeloop_watch_relists_total", { kind: "Widget", reason: "expired" });

  const first = names(0, 10);
  await createWidgets(admin, ns, first);
  await eventually(async () => (await convergedWidgets(admin, ns)).size === first.length, {
    what: "the first widgets to converge",
  });

  const silence = proxy.inject({ verb: "watch", resource: "widgets" }, { silence: true });
  const changed = first.slice(0, 5);
  await Promise.all(changed.map((n) => setMessage(admin, ns, n, `changed ${n}`)));
  const more = names(10, 15);
  await createWidgets(admin, ns, more);
  const swallowed = () =>
    proxy
      .requests()
      .filter((r) => r.verb === "watch" && r.resource === "widgets")
      .reduce((sum, r) => sum + (r.events?.silenced ?? 0), 0);
  await eventually(() => swallowed() >= changed.length + more.length, {
    what: "the proxy to swallow every widget change",
  });
  const unseen = await convergedWidgets(admin, ns);
  assert.ok(
    more.every((n) => !unseen.has(n)) && changed.every((n) => unseen.get(n) === `hello ${n}`),
    "the manager saw none of the changes",
  );

  const revision = await cluster.compactEtcd();
  t.diagnostic(`etcd compacted at revision ${revision}`);
  assert.equal(await expiredRelists(), 0);
  silence.remove();
  proxy.killWatches();

  const want = new Map([...first, ...more].map((n) => [n, `hello ${n}`]));
  for (const n of changed) want.set(n, `changed ${n}`);
  await eventually(
    async () => {
      const converged = await convergedWidgets(admin, ns);
      return [...want].every(([n, message]) => converged.get(n) === message);
    },
    { what: "every widget to converge after the relist", timeoutMs: 60_000, intervalMs: 500 },
  );
  assert.ok((await expiredRelists()) >= 1, "the Widget watch relisted after 410 Expired");
  assert.deepEqual(effects.duplicates, [], "no ConfigMap created twice");
  assert.equal(effects.creates.size, want.size);
});
