/**
 * What the LoadTest owns and what it does not: a Job of the same name made by someone else is
 * never adopted, and deleting a LoadTest leaves nothing behind.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap, Job, type JobObject, NotFoundError, Pod } from "kubeloop";
import { LoadTest } from "../../api.ts";
import { desiredJob } from "../../job.ts";
import operator from "../../operator.ts";
import {
  conditionOf,
  createLoadTest,
  eventually,
  loadTestManifest,
  operatorEvents,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

/** A suspended Job named like a LoadTest, made by someone else (no pods run). */
function foreignJob(namespace: string, name: string, owner?: { name: string; uid: string }): JobObject {
  const template = desiredJob(
    loadTestManifest(namespace, name, {
      count: 1,
      image: "busybox:1.36",
      imagePullPolicy: "IfNotPresent",
      testScript: { config: { configMap: "x" } },
    }),
  );
  assert.ok(template.spec);
  const ownerReferences = owner
    ? [{ apiVersion: "v1", kind: "ConfigMap", ...owner, controller: true, blockOwnerDeletion: false }]
    : undefined;
  return {
    ...template,
    metadata: {
      name,
      namespace,
      labels: { made: "by-hand" },
      ...(ownerReferences ? { ownerReferences } : {}),
    },
    spec: { ...template.spec, suspend: true },
  };
}

test("bug 1.7.7: a pre-existing Job with the same name is not adopted (condition, event, Job untouched)", async (t) => {
  const { namespace } = await startOperator(t);
  const client = await testClient();
  const holder = await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "holder", namespace },
  });
  const orphan = await client.create(Job, foreignJob(namespace, "orphan"));
  const held = await client.create(
    Job,
    foreignJob(namespace, "held", { name: "holder", uid: holder.metadata.uid ?? "" }),
  );
  await createLoadTest(namespace, "orphan");
  await createLoadTest(namespace, "held");

  for (const [name, before, holderText] of [
    ["orphan", orphan, /not controlled by anyone/],
    ["held", held, /controlled by ConfigMap holder/],
  ] as const) {
    const obj = await waitForLoadTest(
      namespace,
      name,
      (o) => conditionOf(o, "Progressing")?.reason === "JobConflict",
      `${name} JobConflict`,
    );
    assert.match(conditionOf(obj, "Progressing")?.message ?? "", holderText);
    assert.deepEqual(
      [conditionOf(obj, "Stalled")?.status, conditionOf(obj, "Succeeded")?.status],
      ["True", "Unknown"],
    );
    const event = await eventually(
      async () => (await operatorEvents(namespace, name)).find((e) => e.reason === "JobConflict"),
      { what: `a JobConflict event for ${name}` },
    );
    assert.equal(event.type, "Warning");
    // The Job controller keeps writing the Job's status; the operator must not have written anything.
    const after = await client.get(Job, name, { namespace });
    const writers = (after.metadata.managedFields ?? []).map((f) => f.manager);
    assert.ok(!writers.includes(operator.name), `Job ${name} written only by ${writers.join(", ")}`);
    assert.deepEqual(after.metadata.ownerReferences, before.metadata.ownerReferences);
    assert.deepEqual(after.metadata.labels, { made: "by-hand" });
    assert.deepEqual(after.spec, before.spec);
  }
});

test("deleting a LoadTest removes its Job and pods; nothing is left behind", async (t) => {
  const { namespace } = await startOperator(t);
  const client = await testClient();
  await createLoadTest(namespace, "gone", { podAnnotations: { "kubeloop.dev/run-duration": "60s" } });
  const selector = { namespace, labelSelector: "artillery.io/test-name=gone" };
  await eventually(async () => (await client.list(Pod, selector)).items.length === 4, {
    what: "4 worker pods",
    timeoutMs: 60_000,
  });
  await client.delete(LoadTest, "gone", { namespace });
  await eventually(
    async () => {
      const jobs = (await client.list(Job, selector)).items.length;
      const pods = (await client.list(Pod, selector)).items.length;
      return jobs === 0 && pods === 0;
    },
    // The garbage collector learns of a new CRD on its discovery resync (30 s): allow for it.
    { what: "no Job and no pod left", timeoutMs: 120_000 },
  );
  const script = await client.get(ConfigMap, "gone-script", { namespace });
  assert.equal(script.metadata.name, "gone-script", "the user's ConfigMap is theirs and stays");
});

test("a finished load test whose Job is deleted is not run again and keeps its result", async (t) => {
  const h = await startOperator(t);
  const { namespace } = h;
  const client = await testClient();
  await createLoadTest(namespace, "once", { count: 2 });
  const done = await waitForLoadTest(
    namespace,
    "once",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "done",
  );
  await client.delete(Job, "once", { namespace, propagationPolicy: "Background" });
  const cachedJobs = await h.manager.cache.reader(Job);
  await eventually(() => cachedJobs.get("once", namespace) === undefined, {
    what: "the operator saw the deletion",
  });
  // Two forced reconciles, the second queued after the first finished: at least one started after
  // the operator saw the Job gone, whatever was in flight.
  const start = await h.reconciles();
  for (const n of [1, 2]) {
    h.manager.controllers[0]?.enqueue(`${namespace}/once`, "test");
    await eventually(async () => (await h.reconciles()) >= start + n, { what: `forced reconcile ${n}` });
  }
  await assert.rejects(client.get(Job, "once", { namespace }), NotFoundError, "the Job is not created again");
  const after = await client.get(LoadTest, "once", { namespace });
  assert.deepEqual(after.status, done.status);
});
