import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { convergedWidgets, installWidgetCrd, SideEffects, Widget, widget } from "../fixtures/widgets.ts";
import { eventually, testClient, testNamespace } from "../support.ts";
import { startWidgetManager as startOn } from "./support.ts";

const startWidgetManager = async (
  t: import("node:test").TestContext,
  namespace: string,
  effects: SideEffects,
) => startOn(t, await testClient(), namespace, effects);

test("a test controller converges 200 objects, each child created exactly once", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const effects = new SideEffects();
  const manager = await startWidgetManager(t, ns, effects);
  const names = Array.from({ length: 200 }, (_, i) => `w${i}`);
  for (let i = 0; i < names.length; i += 20) {
    await Promise.all(names.slice(i, i + 20).map((n) => client.create(Widget, widget(ns, n, `hello ${n}`))));
  }
  await eventually(
    async () => {
      const converged = await convergedWidgets(client, ns);
      return names.every((n) => converged.get(n) === `hello ${n}`);
    },
    { what: "200 ConfigMaps mirroring their widgets", timeoutMs: 120_000, intervalMs: 1000 },
  );
  assert.deepEqual(effects.duplicates, []);
  assert.equal(effects.creates.size, 200);

  const metrics = await (await fetch(`http://127.0.0.1:${manager.ports.metrics}/metrics`)).text();
  assert.match(metrics, /controller_runtime_reconcile_total\{controller="widget",result="success"\} \d+/);
  assert.match(metrics, /workqueue_adds_total\{name="widget",controller="widget"\} \d+/);
  assert.match(
    metrics,
    /kubeloop_reconcile_triggers_total\{controller="widget",trigger="watch:Widget:create"\}/,
  );
  const ready = await fetch(`http://127.0.0.1:${manager.ports.health}/readyz`);
  assert.equal(ready.status, 200);
});

test("an owned child deleted or edited behind the controller's back is put back", async (t) => {
  await installWidgetCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  await startWidgetManager(t, ns, new SideEffects());
  await client.create(Widget, widget(ns, "solo", "original"));
  await eventually(async () => (await convergedWidgets(client, ns)).get("solo") === "original", {
    what: "child created",
  });

  await client.delete(ConfigMap, "solo-config", { namespace: ns });
  await eventually(async () => (await convergedWidgets(client, ns)).get("solo") === "original", {
    what: "deleted child recreated",
  });

  await client.patch(
    ConfigMap,
    "solo-config",
    { data: { message: "tampered" } },
    { type: "merge", namespace: ns },
  );
  await eventually(async () => (await convergedWidgets(client, ns)).get("solo") === "original", {
    what: "tampered child restored",
  });

  await client.patch(Widget, "solo", { spec: { message: "changed" } }, { type: "merge", namespace: ns });
  await eventually(async () => (await convergedWidgets(client, ns)).get("solo") === "changed", {
    what: "spec change applied",
  });
});
