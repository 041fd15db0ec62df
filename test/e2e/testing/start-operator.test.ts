/**
 * The testing kit for operator authors, on the run's cluster: `startOperator` installs an operator's
 * CRDs and runs it in-process (pointed at an existing cluster, as `$KUBELOOP_TEST_KUBECONFIG` does),
 * `testNamespace` gives a test its own namespace and deletes it afterwards.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { CustomResourceDefinition } from "../../../src/api/index.ts";
import {
  ConfigMap,
  type ConfigMapObject,
  controller,
  defineKind,
  defineOperator,
  ensureChild,
  Namespace,
  z,
} from "../../../src/index.ts";
import { eventually, startOperator, testNamespace } from "../../../src/testing/index.ts";
import { kubeconfigPath, testClient } from "../support.ts";

const group = `kit-${randomBytes(3).toString("hex")}.e2e.kubeloop.dev`;
const Bolt = defineKind({
  group,
  version: "v1",
  kind: "Bolt",
  scope: "Namespaced",
  spec: z.object({ length: z.number().int() }),
});

/** Gives each Bolt a ConfigMap holding its length. */
const operator = defineOperator({
  name: "bolts",
  kinds: [Bolt],
  setup: (host) =>
    void controller(host)
      .for(Bolt)
      .owns(ConfigMap)
      .reconcile(async (ctx) => {
        const bolt = ctx.object;
        if (!bolt) return;
        const desired: ConfigMapObject = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `${bolt.metadata.name}-length`, namespace: bolt.metadata.namespace },
          data: { length: String(bolt.spec.length) },
        };
        await ensureChild(ctx, bolt, ConfigMap, desired);
      }),
});

test("startOperator installs the CRDs, runs the operator on the given cluster, and testNamespace cleans up", async (t) => {
  const admin = await testClient();
  const running = await startOperator(operator, { kubeconfig: kubeconfigPath() });
  t.after(async () => {
    await running.stop();
    await admin.delete(CustomResourceDefinition, `bolts.${group}`).catch(() => undefined);
  });
  assert.equal(running.manager.ready, true, "it resolves once the caches synced");
  let namespace = "";
  await t.test("a Bolt gets its ConfigMap", async (sub) => {
    namespace = await testNamespace(running.client, sub);
    assert.match(namespace, /^a-bolt-gets-its-configmap-[0-9a-f]{6}$/);
    await running.client.create(Bolt, {
      apiVersion: Bolt.apiVersion,
      kind: Bolt.kind,
      metadata: { name: "m8", namespace },
      spec: { length: 40 },
    });
    const data = await eventually(async () => (await admin.get(ConfigMap, "m8-length", { namespace })).data, {
      what: "the ConfigMap of Bolt m8",
    });
    assert.deepEqual(data, { length: "40" });
  });
  const ns = await admin.get(Namespace, namespace);
  assert.ok(ns.metadata.deletionTimestamp, "the test's namespace is being deleted once the test ended");
});
