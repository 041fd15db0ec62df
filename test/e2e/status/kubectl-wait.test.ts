import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap } from "../../../src/api/index.ts";
import { findCondition, kstatus } from "../../../src/status/index.ts";
import { eventually, kubectl, testClient, testNamespace } from "../support.ts";
import { configMapName, Gizmo, gizmo, gizmoResource, installGizmoCrd } from "./gizmo.ts";
import { HOLD } from "./gizmo-controller.ts";
import { startGizmoManager } from "./harness.ts";

function waitReady(namespace: string, name: string, timeout: string) {
  const args = [
    "wait",
    "--for=condition=Ready",
    gizmoResource(name),
    "-n",
    namespace,
    `--timeout=${timeout}`,
  ];
  return kubectl(args, { allowFail: true });
}

test("kubectl wait --for=condition=Ready returns once the child holds the spec", async (t) => {
  await installGizmoCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  await startGizmoManager(t, ns);
  await client.create(Gizmo, gizmo(ns, "g", { replicas: 2, message: "hello" }));

  const waited = await waitReady(ns, "g", "60s");
  assert.equal(waited.code, 0, waited.stderr);
  const child = await client.get(ConfigMap, configMapName("g"), { namespace: ns });
  assert.deepEqual(child.data, { message: "hello", replicas: "2" }, "Ready only once the child is right");
  const obj = await client.get(Gizmo, "g", { namespace: ns });
  assert.equal(obj.status?.observedGeneration, 1);
  assert.equal(findCondition(obj.status?.conditions ?? [], "Ready")?.observedGeneration, 1);
  assert.equal(kstatus(obj).status, "Current");
});

test("kubectl wait waits again after a spec change until the new generation is observed", async (t) => {
  await installGizmoCrd();
  const ns = await testNamespace(t);
  const client = await testClient();
  const { probe } = await startGizmoManager(t, ns);
  await client.create(Gizmo, gizmo(ns, "g", { replicas: 1, message: "first" }));
  assert.equal((await waitReady(ns, "g", "60s")).code, 0);
  // No reconcile of generation 1 still running: one whose status write met the spec change would
  // recompute from the fresh read and report generation 2 observed (a CI run saw it).
  await eventually(() => probe.active === 0, { what: "the reconciles of generation 1 to end" });

  await client.patch(Gizmo, "g", { spec: { message: `${HOLD} second` } }, { type: "merge", namespace: ns });
  await eventually(() => probe.gate.waiting > 0, { what: "the reconcile of generation 2 held at the gate" });
  const stale = await client.get(Gizmo, "g", { namespace: ns });
  assert.equal(stale.metadata.generation, 2);
  assert.equal(stale.status?.observedGeneration, 1);
  const staleReady = findCondition(stale.status?.conditions ?? [], "Ready");
  assert.deepEqual([staleReady?.status, staleReady?.observedGeneration], ["True", 1], "a stale Ready=True");
  assert.equal(kstatus(stale).status, "InProgress");

  let settled = false;
  const background = waitReady(ns, "g", "60s").finally(() => {
    settled = true;
  });
  const short = await waitReady(ns, "g", "3s");
  assert.notEqual(short.code, 0, "kubectl must not accept Ready=True of generation 1 for generation 2");
  assert.match(short.stderr, /timed out/);
  assert.equal(settled, false, "the long wait is still waiting");

  probe.gate.open();
  const waited = await background;
  assert.equal(waited.code, 0, waited.stderr);
  const obj = await client.get(Gizmo, "g", { namespace: ns });
  assert.equal(obj.metadata.generation, 2);
  assert.equal(obj.status?.observedGeneration, obj.metadata.generation);
  const ready = findCondition(obj.status?.conditions ?? [], "Ready");
  assert.deepEqual([ready?.status, ready?.observedGeneration], ["True", 2]);
  const child = await client.get(ConfigMap, configMapName("g"), { namespace: ns });
  assert.equal(child.data?.message, `${HOLD} second`);
});
