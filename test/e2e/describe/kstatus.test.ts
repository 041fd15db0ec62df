/**
 * `kubeloop describe` judges built-in kinds by cli-utils' rules for them: a failed Job is Failed
 * while its finished Pod is Current, and a Deployment whose Pods cannot be scheduled stays
 * InProgress, short of available replicas.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Job } from "../../../src/api/index.ts";
import { testClient, testNamespace } from "../support.ts";
import { createDeployment, settledDescription, treeOf } from "./support.ts";

test("a Job whose Pod fails is Failed, and its finished Pod Current", async (t) => {
  const ns = await testNamespace(t);
  await (await testClient()).create(Job, {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "doomed", namespace: ns },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { annotations: { "kubeloop.dev/fail-exit-code": "1" } },
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "worker", image: "registry.example/worker:1" }],
        },
      },
    },
  });
  const failed = await settledDescription(
    "job/doomed",
    ns,
    (d) => !["Current", "InProgress"].includes(d.object.kstatus.status) && d.object.children.length === 1,
    "Job judged",
  );
  assert.deepEqual(failed.object.kstatus, {
    status: "Failed",
    reason: "JobFailed",
    message: "Job Failed. failed: 1/1",
  });
  assert.deepEqual(failed.object.children[0]?.kstatus, {
    status: "Current",
    message: "Pod has completed, but not successfully",
  });
});

test("a Deployment whose Pods cannot be scheduled is InProgress, short of available replicas", async (t) => {
  const ns = await testNamespace(t);
  await createDeployment(ns, "stranded", 2, { nodeSelector: { "kubeloop.dev/no-such-node": "true" } });
  const stranded = await settledDescription(
    "deployment/stranded",
    ns,
    (d) =>
      treeOf(d).filter((o) => o.kind === "Pod").length === 2 && d.object.kstatus.reason === "LessAvailable",
    "Deployment stranded",
  );
  const [deployment, replicaSet, ...pods] = treeOf(stranded);
  const unavailable = { status: "InProgress", reason: "LessAvailable", message: "Available: 0/2" };
  assert.deepEqual(deployment?.kstatus, unavailable);
  assert.deepEqual(replicaSet?.kstatus, unavailable);
  for (const pod of pods) assert.match(pod.kstatus.reason ?? "", /^(PodNotScheduled|PodUnschedulable)$/);
});
