/**
 * Taking over from the Artillery operator: a LoadTest whose Job that operator already made (built
 * here as its `controllers/job.go` builds it, at commit d21d40f5551ff2af1ac91f4461b6de1f05dce3b7)
 * is followed to completion through that Job, never reported as a conflict nor run a second time.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigMap, Job, type JobObject } from "kubeloop";
import { controllerReference } from "kubeloop/ownership";
import { LoadTest, type LoadTestObject } from "../../api.ts";
import { jobLabels } from "../../job.ts";
import {
  conditionOf,
  createLoadTest,
  scriptConfigMap,
  startOperator,
  testClient,
  waitForLoadTest,
} from "./harness.ts";

/** The Job the Artillery operator made for `loadTest` (its `job()`, telemetry disabled). */
function artilleryOperatorJob(loadTest: LoadTestObject, script: string): JobObject {
  const name = loadTest.metadata.name ?? "";
  const count = loadTest.spec.count;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace: loadTest.metadata.namespace,
      labels: jobLabels(name, "loadtest-worker-master"),
      ownerReferences: [controllerReference(loadTest)],
    },
    spec: {
      parallelism: count,
      completions: count,
      backoffLimit: 0,
      template: {
        metadata: { labels: jobLabels(name, "loadtest-worker") },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name,
              image: "artilleryio/artillery:latest",
              imagePullPolicy: "Always",
              volumeMounts: [{ name: "test-script", mountPath: "/data" }],
              args: ["run", "/data/test-script.yaml"],
              env: [
                { name: "WORKER_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "ARTILLERY_DISABLE_TELEMETRY", value: "true" },
              ],
            },
          ],
          volumes: [{ name: "test-script", configMap: { name: script } }],
        },
      },
    },
  };
}

test("a Job the Artillery operator made is recognised: followed to completion, not a conflict, not run twice", async (t) => {
  const { namespace } = await startOperator(t);
  const client = await testClient();
  // Without its script the LoadTest waits, as if the old operator had made the Job and gone.
  await createLoadTest(namespace, "legacy", { count: 3 }, { script: false });
  const loadTest = await client.get(LoadTest, "legacy", { namespace });
  const created = await client.create(Job, artilleryOperatorJob(loadTest, "legacy-script"));
  await client.create(ConfigMap, scriptConfigMap(namespace, "legacy-script"));

  const done = await waitForLoadTest(
    namespace,
    "legacy",
    (o) => conditionOf(o, "Completed")?.status === "True",
    "the LoadTest completed through the old Job",
  );
  assert.deepEqual(
    [conditionOf(done, "Completed")?.reason, done.status?.completions, done.status?.image],
    ["Succeeded", "3/3", "artilleryio/artillery:latest"],
  );
  const job = await client.get(Job, "legacy", { namespace });
  assert.equal(job.metadata.uid, created.metadata.uid, "the old Job was kept, not replaced");
  assert.notEqual(conditionOf(done, "Progressing")?.reason, "JobConflict");
});
