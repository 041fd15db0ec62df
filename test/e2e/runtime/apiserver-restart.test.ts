import assert from "node:assert/strict";
import { test } from "node:test";
import { convergedWidgets, installWidgetCrd, SideEffects } from "../fixtures/widgets.ts";
import { eventually } from "../support.ts";
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

test("killing and restarting kube-apiserver mid-run loses no update and duplicates no create", async (t) => {
  const cluster = await ownCluster(t);
  await installWidgetCrd(cluster.kubeconfigPath);
  const admin = await clientFor(t, cluster.kubeconfigPath);
  const ns = await createNamespace(admin, "widgets");
  // The manager's own client at controller-runtime's 20 qps, so converging takes a few seconds.
  const effects = new SideEffects();
  const manager = await startWidgetManager(t, await clientFor(t, cluster.kubeconfigPath, 20), ns, effects);

  const first = names(0, 100);
  await createWidgets(admin, ns, first);
  const before = await eventually(
    async () => {
      const converged = (await convergedWidgets(admin, ns)).size;
      return converged >= 10 && converged;
    },
    { what: "convergence to be under way", intervalMs: 50 },
  );
  await cluster.restart("kube-apiserver", { downMs: 8000 });
  const readyAt = performance.now();
  t.diagnostic(`${before} of ${first.length} widgets had converged when kube-apiserver was killed`);
  assert.ok(before < first.length, "the apiserver went down while the manager was converging");

  const updated = first.slice(0, 30);
  await Promise.all(updated.map((n) => setMessage(admin, ns, n, `updated ${n}`)));
  const more = names(100, 130);
  await createWidgets(admin, ns, more);

  const want = new Map([...first, ...more].map((n) => [n, `hello ${n}`]));
  for (const n of updated) want.set(n, `updated ${n}`);
  await eventually(
    async () => {
      const converged = await convergedWidgets(admin, ns);
      return [...want].every(([n, message]) => converged.get(n) === message);
    },
    { what: "every widget to converge to its final spec", timeoutMs: 120_000, intervalMs: 250 },
  );
  t.diagnostic(
    `every widget converged ${Math.round(performance.now() - readyAt)} ms after kube-apiserver was ready again (8 s outage)`,
  );
  assert.deepEqual(effects.duplicates, [], "no ConfigMap created twice");
  // A create the apiserver committed just before it was killed never reports success; its retry
  // finds the ConfigMap and leaves it. At most one create per worker (4) can be lost that way.
  const recorded = effects.creates.size;
  assert.ok(recorded <= want.size && recorded >= want.size - 4, `${recorded} creates recorded`);
  const reconnects = await metricValue(manager, "kubeloop_watch_reconnects_total", { kind: "Widget" });
  const relists = await metricValue(manager, "kubeloop_watch_relists_total", { kind: "Widget" });
  t.diagnostic(`Widget watch: ${reconnects} reconnects, ${relists} lists`);
  assert.ok(reconnects >= 1, "the Widget watch reconnected after losing the apiserver");
});
