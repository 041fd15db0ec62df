/**
 * What a sharded manager's shard keys must not hide, on the run's control plane (the apiserver's
 * `ShardedListAndWatch` gate on, so each shard's informers are narrowed by the server), with one
 * replica holding the default 32 shards:
 *
 * - sharded by namespace (the default), a controller of a cluster-scoped kind runs on shard 0 and
 *   reads, and watches, an input ConfigMap in a namespace that another shard holds;
 * - sharded by uid, a controller whose child is made with `ctx.client.create` (not `ensureChild`,
 *   so without the shard label) hears of the child's changes and repairs them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap, type ConfigMapObject, Namespace } from "../../../src/api/index.ts";
import { controller } from "../../../src/controller/index.ts";
import { inRanges, shardHash, splitHashSpace } from "../../../src/sharding/index.ts";
import { installWidgetCrd, Widget, widget, widgetReconciler } from "../fixtures/widgets.ts";
import { eventually, onCleanup, startManager, testClient, testNamespace } from "../support.ts";

const settingAnnotation = "e2e.kubeloop.dev/setting";
/**
 * An identity of the replica that makes a valid Lease name: what is tested here is where objects
 * are cached, not identities (the default one is issue 30's item 3, tested with the coordinator).
 */
const identity = "replica-1";

/** `<prefix>-<i>`, the first such name whose namespace hash is outside shard 0 of the default 32. */
function outsideShardZero(prefix: string): string {
  const [zero] = splitHashSpace(32);
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i}`;
    if (zero && !inRanges(shardHash(name), [zero])) return name;
  }
}

test("sharded by namespace, a controller of a cluster-scoped kind reads and watches an input in a namespace another shard holds", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  const settingsNs = outsideShardZero(`${ns.slice(0, 50)}-settings`);
  await client.create(Namespace, { apiVersion: "v1", kind: "Namespace", metadata: { name: settingsNs } });
  onCleanup(t, () => client.delete(Namespace, settingsNs).catch(() => {}));
  const settings: ConfigMapObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: settingsNs },
    data: { value: "one" },
  };
  await client.create(ConfigMap, settings);
  const isSettings = (cm: ConfigMapObject) =>
    cm.metadata.namespace === settingsNs && cm.metadata.name === "settings";

  await startManager(t, { name: "shard-key-namespace", sharding: { namespace: ns, identity } }, (manager) =>
    manager.setup((host) => {
      // Namespaces are cluster-scoped: the controller runs on shard 0's holder. It annotates the
      // test's namespace with the setting it reads from the cache.
      controller(host)
        .for(Namespace)
        .watches(ConfigMap, (cm) => (isSettings(cm) ? [ns] : []))
        .reconcile(async (ctx) => {
          if (ctx.request.name !== ns) return;
          const read = (await ctx.cache.reader(ConfigMap)).get("settings", settingsNs);
          const value = read?.data?.value ?? "(not found)";
          const patch = { metadata: { annotations: { [settingAnnotation]: value } } };
          await ctx.client.patch(Namespace, ns, patch, { type: "merge" });
        });
    }),
  );
  const annotated = async () => (await client.get(Namespace, ns)).metadata.annotations?.[settingAnnotation];
  await eventually(async () => (await annotated()) === "one", {
    what: "the setting read from another shard's namespace",
    timeoutMs: 60_000,
  });

  await client.patch(
    ConfigMap,
    "settings",
    { data: { value: "two" } },
    { type: "merge", namespace: settingsNs },
  );
  await eventually(async () => (await annotated()) === "two", {
    what: "the change of the setting heard and read again",
    timeoutMs: 60_000,
  });
  assert.equal(await annotated(), "two");
});

test("sharded by uid, a controller whose child was made with ctx.client.create hears of the child's changes and repairs them", async (t) => {
  const ns = await testNamespace(t);
  const client = await testClient();
  await installWidgetCrd();
  await startManager(
    t,
    // One namespace: other tests' Widgets share the run's cluster.
    { name: "shard-key-uid", namespace: ns, sharding: { key: "uid", namespace: ns, identity } },
    (manager) =>
      manager.setup((host) => {
        // widgetReconciler makes the child with ctx.client.create: it carries no shard label.
        controller(host).for(Widget).owns(ConfigMap).reconcile(widgetReconciler());
      }),
  );
  await client.create(Widget, widget(ns, "w", "hello"));
  const message = async () =>
    (await client.get(ConfigMap, "w-config", { namespace: ns }).catch(() => undefined))?.data?.message;
  await eventually(async () => (await message()) === "hello", {
    what: "the child created",
    timeoutMs: 60_000,
  });
  const child = await client.get(ConfigMap, "w-config", { namespace: ns });
  assert.equal(child.metadata.labels?.["kubeloop.dev/shard"], undefined, "made without the shard label");

  await client.patch(
    ConfigMap,
    "w-config",
    { data: { message: "tampered" } },
    { type: "merge", namespace: ns },
  );
  await eventually(async () => (await message()) === "hello", {
    what: "the tampered child repaired by its owner's controller",
    timeoutMs: 60_000,
  });
});
