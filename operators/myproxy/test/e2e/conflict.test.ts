/**
 * Issue 13: an object holding a child's name that the MyProxy does not control is a conflict, not
 * something to adopt. Taking it over would add the MyProxy's controller reference, and deleting the
 * MyProxy would then let garbage collection destroy a user's data. The object stays untouched
 * through the MyProxy's creation and deletion, and the MyProxy reports `ChildConflict`.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { ConfigMap, Deployment, kstatus } from "kubeloop";
import { MyProxy } from "../../api.ts";
import {
  conditionOf,
  createProxy,
  eventsAbout,
  eventually,
  getOrGone,
  installCrds,
  startOperator,
  testClient,
  testNamespace,
  waitForCondition,
} from "./support.ts";

before(installCrds);

/**
 * Waits for MyProxy `name` to stall on `ChildConflict` with a Warning event, then deletes it in the
 * foreground: it is gone only once garbage collection has dealt with everything it owned.
 */
async function conflictThenDelete(ns: string, name: string, conflicting: RegExp) {
  const stalled = await waitForCondition(MyProxy, ns, name, {
    type: "Ready",
    status: "False",
    reason: "ChildConflict",
  });
  assert.equal(conditionOf(stalled, "Stalled")?.status, "True");
  assert.equal(kstatus(stalled).status, "Failed");
  const message = conditionOf(stalled, "Progressing")?.message ?? "";
  assert.match(message, conflicting);
  assert.match(message, /no object controls it/);
  assert.match(message, /Delete or rename it, or give the owner another name/);
  const warnings = await eventually(
    async () => {
      const found = await eventsAbout(ns, name, "ChildConflict");
      return found.some((e) => e.type === "Warning") && found;
    },
    { what: "a ChildConflict Warning event" },
  );
  assert.ok(warnings.length > 0);

  const client = await testClient();
  await client.delete(MyProxy, name, { namespace: ns, propagationPolicy: "Foreground" });
  await eventually(async () => !(await getOrGone(MyProxy, ns, name)), {
    what: `MyProxy ${name} deleted, its dependents first`,
    timeoutMs: 120_000,
  });
}

test("issue 13: a user's ConfigMap named like a MyProxy's survives creating and deleting the MyProxy, untouched", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  const client = await testClient();
  const before = await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "web-nginx", namespace: ns },
    data: { "settings.json": '{"user":"data"}' },
  });

  await createProxy(ns, "web");
  await conflictThenDelete(ns, "web", /ConfigMap .*web-nginx already exists/);

  const after = await client.get(ConfigMap, "web-nginx", { namespace: ns });
  assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, "never written");
  assert.equal(after.metadata.ownerReferences, undefined, "never adopted");
  assert.deepEqual(after.data, { "settings.json": '{"user":"data"}' });
  assert.equal(await getOrGone(Deployment, ns, "web"), undefined, "nothing else was created for it");
});

test("issue 13: a user's Deployment named like a MyProxy survives creating and deleting the MyProxy; replicas and image unchanged", async (t) => {
  const ns = await testNamespace(t);
  await startOperator(t, ns);
  const client = await testClient();
  const labels = { app: "payments" };
  const before = await client.create(Deployment, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "payments", namespace: ns },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "payments", image: "registry.example/payments:1.2" }] },
      },
    },
  });

  await createProxy(ns, "payments");
  // The MyProxy's own ConfigMap is created; it is the Deployment's name that conflicts.
  await eventually(() => getOrGone(ConfigMap, ns, "payments-nginx"), { what: "the MyProxy's ConfigMap" });
  await conflictThenDelete(ns, "payments", /Deployment .*payments already exists/);

  const after = await client.get(Deployment, "payments", { namespace: ns });
  assert.equal(after.metadata.generation, before.metadata.generation, "its spec was never written");
  assert.equal(after.metadata.ownerReferences, undefined, "never adopted");
  assert.equal(after.spec?.replicas, 3);
  assert.deepEqual(
    after.spec?.template.spec?.containers.map((c) => [c.name, c.image]),
    [["payments", "registry.example/payments:1.2"]],
  );
  assert.equal(
    await getOrGone(ConfigMap, ns, "payments-nginx"),
    undefined,
    "what the MyProxy owned went with it",
  );
});
