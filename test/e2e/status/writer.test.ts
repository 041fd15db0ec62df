import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { type KubeObject, resourceType } from "../../../src/api/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import {
  type Condition,
  findCondition,
  type StatusOf,
  StatusSubresourceMissingError,
  updateStatus,
} from "../../../src/status/index.ts";
import { crdsEstablished, eventually, kubectl, testClient, testNamespace } from "../support.ts";
import { Gizmo, GizmoConditions, type GizmoObject, gizmo, installGizmoCrd } from "./gizmo.ts";
import { countedClient, RequestCounter } from "./harness.ts";

type GizmoStatus = StatusOf<GizmoObject>;

const clock = new FakeClock(Date.parse("2026-11-22T04:25:53Z"));

/** The set's conditions for `obj` with ConfigMapReady as given, Degraded False. */
function conditionsFor(obj: GizmoObject, ready: "True" | "False") {
  return GizmoConditions.begin(obj, clock)
    .set("ConfigMapReady", {
      status: ready,
      reason: ready === "True" ? "ConfigMapInSync" : "ConfigMapMissing",
    })
    .set("Degraded", { status: "False", reason: "ReplicasRequested" })
    .finish().status;
}

async function setup(t: TestContext) {
  await installGizmoCrd();
  const namespace = await testNamespace(t);
  const counter = new RequestCounter();
  const client = await countedClient(counter);
  t.after(() => client.close());
  const created = await client.create(Gizmo, gizmo(namespace, "w", { replicas: 1, message: "m" }));
  return { namespace, counter, client, created };
}

test("the writer sends nothing for an equal status and recomputes from a fresh read after a conflict", async (t) => {
  const { namespace, counter, client, created } = await setup(t);
  const compute = (fresh: GizmoObject): GizmoStatus => ({
    replicas: fresh.spec.replicas,
    ...conditionsFor(fresh, "True"),
  });
  assert.equal(await updateStatus(client, Gizmo, created, compute), "updated");
  const written = await client.get(Gizmo, "w", { namespace });
  const writes = counter.writes;
  assert.equal(await updateStatus(client, Gizmo, written, compute), "unchanged");
  assert.equal(counter.writes, writes, "no request for an unchanged status");

  // A stale copy whose stored status differs from what it computes: the write goes out and conflicts.
  await client.patch(Gizmo, "w", { spec: { replicas: 3 } }, { type: "merge", namespace });
  const seen: [string | undefined, number][] = [];
  const result = await updateStatus(client, Gizmo, created, (fresh) => {
    seen.push([fresh.metadata.resourceVersion, fresh.spec.replicas]);
    return compute(fresh);
  });
  assert.equal(result, "updated");
  assert.equal(counter.answered("409"), 1, "the stale write conflicted once");
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[0], [created.metadata.resourceVersion, 1]);
  assert.equal(seen[1]?.[1], 3, "recomputed from the fresh object");
  const fresh = await client.get(Gizmo, "w", { namespace });
  assert.equal(fresh.status?.replicas, 3);
  assert.equal(fresh.status?.observedGeneration, 2);
});

test("the merge patch removes status fields the computed status leaves out", async (t) => {
  const { namespace, client, created } = await setup(t);
  await updateStatus(client, Gizmo, created, () => ({ replicas: 1, configMap: "w-config" }));
  const full = await client.get(Gizmo, "w", { namespace });
  assert.equal(await updateStatus(client, Gizmo, full, () => ({ replicas: 2 })), "updated");
  const trimmed = await client.get(Gizmo, "w", { namespace });
  assert.deepEqual(trimmed.status, { replicas: 2 });
});

test("server-side apply drops fields it stops sending and leaves another manager's condition", async (t) => {
  const { namespace, counter, client, created } = await setup(t);
  const options = {
    method: "apply",
    fieldManager: "gizmo-writer",
    conditionTypes: GizmoConditions.types,
  } as const;
  await updateStatus(
    client,
    Gizmo,
    created,
    (f) => ({ replicas: 1, configMap: "w-config", ...conditionsFor(f, "False") }),
    options,
  );
  const foreign: Condition = {
    type: "example.com/Audited",
    status: "True",
    reason: "Checked",
    message: "",
    lastTransitionTime: "2026-11-22T04:25:53Z",
  };
  const other = { apiVersion: Gizmo.apiVersion, kind: Gizmo.kind, metadata: { name: "w", namespace } };
  await client.status.apply(
    Gizmo,
    { ...other, status: { conditions: [foreign] } },
    { fieldManager: "auditor", force: true },
  );

  const current = await client.get(Gizmo, "w", { namespace });
  // The computed status passes the foreign condition through, as a condition set's finish() does.
  const compute = (f: GizmoObject): GizmoStatus => ({ replicas: 2, ...conditionsFor(f, "True") });
  assert.equal(await updateStatus(client, Gizmo, current, compute, options), "updated");
  const after = await client.get(Gizmo, "w", { namespace });
  assert.equal(after.status?.replicas, 2);
  assert.equal(after.status?.configMap, undefined, "no longer applied, so removed");
  assert.equal(findCondition(after.status?.conditions ?? [], "Ready")?.status, "True");
  assert.deepEqual(findCondition(after.status?.conditions ?? [], foreign.type), foreign);

  const writes = counter.writes;
  assert.equal(await updateStatus(client, Gizmo, after, compute, options), "unchanged");
  assert.equal(counter.writes, writes);
});

test("the writer resolves gone for a deleted object", async (t) => {
  const { namespace, client, created } = await setup(t);
  await client.delete(Gizmo, "w", { namespace });
  const result = await updateStatus(client, Gizmo, created, () => ({ replicas: 1 }));
  assert.equal(result, "gone");
  const ssa = await updateStatus(client, Gizmo, created, () => ({ replicas: 1 }), { method: "apply" });
  assert.equal(ssa, "gone");
});

const Plain = resourceType<KubeObject & { status?: { note?: string } }>(
  "e2e.kubeloop.dev/v1",
  "Plain",
  "plains",
  true,
);

const plainCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "plains.e2e.kubeloop.dev" },
  spec: {
    group: "e2e.kubeloop.dev",
    scope: "Namespaced",
    names: { plural: "plains", singular: "plain", kind: "Plain" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

test("a kind without the status subresource is an error naming the fix, not an object taken for gone", async (t) => {
  await kubectl(["apply", "-f", "-"], { input: JSON.stringify(plainCrd) });
  await crdsEstablished(["plains.e2e.kubeloop.dev"]);
  const namespace = await testNamespace(t);
  const client = await testClient();
  t.after(() => client.close());
  const plain = await eventually(() =>
    client.create(Plain, { apiVersion: Plain.apiVersion, kind: "Plain", metadata: { name: "p", namespace } }),
  );
  await assert.rejects(
    updateStatus(client, Plain, plain, () => ({ note: "written" })),
    (err) => err instanceof StatusSubresourceMissingError && /no status subresource/.test(err.message),
  );
  await client.delete(Plain, "p", { namespace });
  assert.equal(await updateStatus(client, Plain, plain, () => ({ note: "written" })), "gone");
});
